import { checkTargets, reads } from '../../core/ir/uses.js';
import { forEachStmt } from '../../core/ir/visit.js';
import type { Launch, Tiling, VLoop } from '../../core/ir/types.js';
import type { Codegen, PointContext } from './Codegen.js';

/**
 * Outputs of fused nests streamed past the caches (codegen.streamOutputs, native/orch_stream.h).
 * An array a launch writes at every point of a nest and never reads back is computed a K
 * column at a time into a buffer of the thread's stack, in L1, and copied to the field by
 * streaming stores: a store that misses would first read the line it overwrites (hdiff: a
 * quarter of its traffic). Each call streams only where its domain is past L2 a thread
 * (orch::stream_stores), else runs the fused loop as built without the option. Only the
 * place values pass through changes: results are bitwise the same.
 */
export class StreamedOutputs {
  /** The launch's streamed arrays by the index of the nest writing them, per PARALLEL loop. */
  private readonly byLoop: Map<VLoop, string[][]>;
  /** The arrays being streamed by the fused loop now emitted: name -> its column buffer. */
  private active: Map<string, string> | undefined;

  constructor(
    private readonly cg: Codegen,
    s: Launch,
    tile: Tiling,
  ) {
    this.byLoop = new Map();
    for (const v of s.loops) {
      const nests = v.order === 'PARALLEL' ? v.body.map((_, n) => streamable(cg, s, tile, v, n)) : [];
      if (nests.some((names) => names.length)) this.byLoop.set(v, nests);
    }
  }

  /** Whether the launch streams anything (then it decides once per call, and fences each tile). */
  get any(): boolean {
    return this.byLoop.size > 0;
  }

  /** Before the launch's threads start: whether this call streams (orch::stream_stores). */
  decide(points: string): void {
    if (this.any) this.cg.w.line(`const bool stream_outputs = orch::stream_stores(${points}, orch::max_threads());`);
  }

  /** At the end of a tile: its streaming stores ordered before the next tile and the barrier. */
  fence(): void {
    if (this.any) this.cg.w.line('if (stream_outputs) orch::stream_fence();');
  }

  /**
   * A fused loop, streamed where this call streams and the tile's columns fit the buffers,
   * else as without the option (`emit` writes it, reading `active` for the stores).
   */
  fusedLoop(v: VLoop, ctx: PointContext, emit: () => void): void {
    const nests = this.byLoop.get(v);
    if (!nests) {
      emit();
      return;
    }
    const w = this.cg.w;
    const names = nests.flat();
    w.open('if (stream_outputs && khi - klo <= ORCH_STREAM_LEVELS) {');
    for (const name of names) {
      w.line(`alignas(64) double ${this.buffer(name)}[ORCH_STREAM_LEVELS];`);
    }
    this.active = new Map(names.map((n) => [n, this.buffer(n)]));
    ctx.streamed = this.active;
    emit();
    ctx.streamed = undefined;
    this.active = undefined;
    w.reopen('} else {');
    emit();
    w.close();
  }

  /** Inside the streamed fused loop, after nest `n`'s K loop at its point (i, j; `at` declares them where they are not in scope): its columns copied out. */
  afterColumn(v: VLoop, n: number, ctx: PointContext, at?: string): void {
    if (!this.active) return;
    const names = this.byLoop.get(v)?.[n] ?? [];
    if (!names.length) return;
    const w = this.cg.w;
    const streamed = ctx.streamed;
    ctx.streamed = undefined;
    w.open('{');
    if (at) w.line(at);
    w.line('const int64_t k = klo;');
    for (const name of names) w.line(`orch::stream_column(&${this.cg.ex.fieldRef(name, [0, 0, 0], ctx)}, ${this.buffer(name)}, khi - klo, ${this.cg.ids.stride(name, 2)});`);
    w.close();
    ctx.streamed = streamed;
  }

  private buffer(name: string): string {
    return this.cg.ids.local(`sbuf_${name}`);
  }

}

/**
 * The arrays nest `n` of `v` may stream: K-contiguous float64 fields (I, J, K; no data
 * dimensions) that outlive the tile, assigned at the point by one statement of the nest's
 * top level (so every point of its range, once) and nowhere else in the launch, never read
 * or checked in it, by a nest that computes no halo (each point written by one tile).
 */
function streamable(cg: Codegen, s: Launch, tile: Tiling, v: VLoop, n: number): string[] {
  const h = v.body[n];
  if (h.grow?.some((g) => g !== 0)) return [];
  const kept = new Set([...tile.local.map((l) => l.name), ...(tile.versioned ?? []).flatMap((x) => [x.name, x.shadow])]);
  const all = s.loops.flatMap((l) => l.body.flatMap((x) => x.body));
  const read = new Set(reads(all).map((r) => r.name));
  const checked = checkTargets(all);
  const assigns = new Map<string, number>();
  forEachStmt(all, (st) => {
    if (st.kind === 'assign') assigns.set(st.target, (assigns.get(st.target) ?? 0) + 1);
  });
  const out: string[] = [];
  for (const st of h.body) {
    if (st.kind !== 'assign' || st.kOffset || st.kVar || st.data?.length) continue;
    const a = cg.array(st.target);
    if (a.dtype !== 'float64' || a.axes !== 'IJK' || a.dims?.length || kept.has(a.name)) continue;
    if (read.has(a.name) || checked.has(a.name) || assigns.get(a.name) !== 1 || out.includes(a.name)) continue;
    out.push(a.name);
  }
  return out;
}
