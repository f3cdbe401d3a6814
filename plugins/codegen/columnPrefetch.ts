import type { Delay } from '../../core/ir/nestFusion.js';
import { reads } from '../../core/ir/uses.js';
import type { HLoop } from '../../core/ir/types.js';
import type { Codegen, PointContext } from './Codegen.js';

/**
 * Software prefetch in fused nests (codegen.prefetchColumns, native/orch_prefetch.h): at each
 * column of a tile's fused loop, the K column `distance` columns ahead of the newest one each
 * float64 argument (I, J, K) is read at, in the row furthest ahead it is read in. That
 * row is read there for the first time (the rows behind it were read as the loop passed
 * them, and are in L2), so its lines come from L3 or memory. A hint only: results are
 * bitwise the same.
 *
 * Each call prefetches only where its domain is past L2 a thread (orch::prefetch_pays: in
 * cache the prefetches are only instructions).
 */
export class ColumnPrefetch {
  private readonly at: { at: number; depth: number };
  private used = false;

  /** Before a tiled launch's threads start, where it has fused nests and codegen.prefetchColumns: where the call's choice goes. */
  constructor(
    private readonly cg: Codegen,
    private readonly points: string,
    private readonly distance: number,
  ) {
    this.at = cg.w.mark();
  }

  /** The code at the top of a column of the fused loop of `nests` (undefined: nothing to prefetch). */
  column(nests: readonly HLoop[], delays: readonly Delay[], ctx: PointContext): (() => void) | undefined {
    const w = this.cg.w;
    return () => {
      const lines = prefetchLines(this.cg, nests, delays, this.cg.order, ctx, this.distance);
      if (!lines.length) return;
      this.used = true;
      w.open('if (prefetch_columns) {');
      lines.forEach((l) => w.line(l));
      w.close();
    };
  }

  /** After the launch's loops: whether this call prefetches, decided once, where any column prefetches (else the code is the launch's without the option). */
  finish(): void {
    if (this.used) this.cg.w.insertAt(this.at, [`const bool prefetch_columns = orch::prefetch_pays(${this.points}, orch::max_threads());`]);
  }
}

/** The prefetches at a column, where `r` and `c` are the loop's positions along `order`'s first two axes. */
function prefetchLines(cg: Codegen, nests: readonly HLoop[], delays: readonly Delay[], order: string, ctx: PointContext, distance: number): string[] {
  // the axis of r (0: I, 1: J) and of c
  const [ra, ca] = [order[0] === 'I' ? 0 : 1, order[1] === 'I' ? 0 : 1];
  const newest = new Map<string, [number, number]>();
  nests.forEach((h, n) => {
    for (const acc of reads(h.body)) {
      const decl = ctx.hoisted.get(acc.name);
      const a = cg.array(acc.name);
      if (!decl || decl.axes !== 'IJK' || a.role !== 'arg' || a.dtype !== 'float64' || a.dims?.length) continue;
      const at: [number, number] = [acc.offset[ra] - delays[n][0], acc.offset[ca] - delays[n][1]];
      const best = newest.get(acc.name);
      if (!best || at[0] > best[0] || (at[0] === best[0] && at[1] > best[1])) newest.set(acc.name, at);
    }
  });
  const plus = (v: string, d: number) => (d === 0 ? v : d > 0 ? `(${v} + ${d})` : `(${v} - ${-d})`);
  return [...newest].map(([name, [dr, dc]]) => {
    const index = [0, 1].map((axis) => (axis === ra ? plus('r', dr) : plus('c', dc + distance)));
    const offset = `${index[0]} * ${cg.ids.stride(name, 0)} + ${index[1]} * ${cg.ids.stride(name, 1)} + klo * ${cg.ids.stride(name, 2)}`;
    return `orch::prefetch_column(reinterpret_cast<uintptr_t>(${cg.ids.ptr(name)}) + static_cast<uintptr_t>(${offset}) * sizeof(double), (khi - klo) * static_cast<int64_t>(sizeof(double)));`;
  });
}
