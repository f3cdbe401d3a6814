import type { Codegen, CppOptions } from './Codegen.js';
import type { SweepStaging } from './sweepStaging.js';
import type { HLoop, VLoop } from '../../core/ir/types.js';
import { touches } from '../../core/ir/uses.js';

/** orch::stage_plane (native/orch_stage.h): the plane stride of a staged box of `points` a level. */
function stagePlane(points: number): number {
  const lines = Math.floor((points + 7) / 8) * 8;
  return lines % 256 === 0 ? lines + 8 : lines;
}

/** Whether tiles of FORWARD/BACKWARD launches stage their fields (stageSweeps, or the blocks below). */
export function stagesSweeps(opts: CppOptions): boolean {
  return opts.stageSweeps === true || blockColumns(opts) !== undefined;
}

/** Columns per staged sweep block along J (codegen.sweepBlock), if blocks are on. */
export function blockColumns(opts: CppOptions): number | undefined {
  return typeof opts.sweepBlock === 'number' && opts.sweepBlock > 0 ? opts.sweepBlock : undefined;
}

/**
 * Staged sweep tiles as blocks of a few columns (codegen.sweepBlock): the Thomas solver's
 * speed of light on this layout, measured with hand-written kernels (128x128x80, 1 thread,
 * AVX-512): a sweep tile is compute in L1 (~0.9 ns a point with 32 columns: 8x8 transposes,
 * one division a level) and memory (24 B a point, ~1.05 ns at the triad's rate), and the two
 * only overlap when the memory is kept busy while the tile computes. So a block is one row of
 * `n` columns along J (its staged buffers, [K][n], stay in L1); while its levels run, the next
 * block's columns are prefetched a few lines a level (into L2: a whole block at once, or into
 * L1, stalled on the miss buffers); and the fields it writes are streamed back past the caches,
 * without the read of the lines they overwrite. Measured: 32 columns, prefetch and streaming
 * 1.47 ns a point (0.75 of triad); without streaming 2.2; without prefetch 2.4; the default
 * 4x32 tile 3.6. Only copies and hints: the same operations per point in the same order.
 */
export class SweepBlocks {
  private readonly prefetched: string[];
  /** While sweep() emits the loop for rows of one whole block: that loop's index. */
  private whole: number | undefined;
  /** Written fields streamed back by their last sweep (orch::stage_stream), with its loop: the last loop touching them, BACKWARD, writing them. */
  private readonly swept: { name: string; vi: number }[] = [];

  constructor(
    private readonly cg: Codegen,
    readonly columns: number,
    private readonly staging: SweepStaging,
    private readonly sweepLevels: string,
    private readonly locals: readonly string[],
    private readonly loops: readonly VLoop[],
  ) {
    this.prefetched = staging.staged.filter((x) => x.fill).map((x) => x.name);
    for (const x of staging.staged) {
      if (!x.written.length || cg.array(x.name).dtype !== 'float64') continue;
      const vi = loops.reduce((last, v, n) => (v.body.some((h) => touches(h.body, x.name)) ? n : last), -1);
      if (loops[vi]?.order === 'BACKWARD' && x.written.some((w) => w.vi === vi)) this.swept.push({ name: x.name, vi });
    }
    staging.sweptBack = new Set(this.swept.map((x) => x.name));
  }

  /** The tile's shape: one row of I, `columns` along J (the domain's width if narrower). */
  shape(): void {
    this.cg.w.line(`const int64_t tsj = std::min<int64_t>(${this.columns}, std::max<int64_t>(1, dom1)), tsi = 1;`);
  }

  /**
   * After the fields are staged in: a cursor per field copied in over the next block's columns
   * (the box shifted one block along J; after a row's last block, the next row's first: the
   * shifted box would be the row's halo and a part of that block, 6 of the 32 columns missed
   * and 6 read for nothing at 128 columns a row), spread over the levels of the tile's sweeps.
   * Only K-contiguous fields, whose columns are one span of memory.
   */
  prefetchNext(): void {
    const w = this.cg.w;
    for (const name of this.prefetched) {
      const x = this.staging.prefix(name);
      const size = `static_cast<int64_t>(sizeof *${x}_g)`;
      const next = `(tj + 1 < ntj ? ${x}_i0 * ${x}_s0 + (${x}_j1 + 1) * ${x}_s1 : (${x}_i0 + 1) * ${x}_s0 + (${x}_j0 - tj * tsj) * ${x}_s1)`;
      w.line(
        `orch::stage_prefetch ${x}_pf = ${x}_s2 == 1 && ${x}_nk > 0 ? orch::stage_prefetch(reinterpret_cast<uintptr_t>(${x}_g) + static_cast<uintptr_t>(${next} * ${size}), ` +
          `${x}_ni, ${x}_s0 * ${size}, ${x}_nj * ${x}_s1 * ${size}, ${this.sweepLevels}) : orch::stage_prefetch();`,
      );
    }
    this.streamSweeps();
  }

  /** For each field streamed back by its last sweep, the stream over that sweep's levels (used only by its whole-block loop, sweep()). */
  private streamSweeps(): void {
    for (const { name, vi } of this.swept) {
      const x = this.staging.prefix(name);
      this.cg.w.line(
        `orch::stage_stream ${x}_ss(${x}_g + ${x}_i0 * ${x}_s0 + ${x}_j0 * ${x}_s1 + ${x}_k0 * ${x}_s2, ${x}_s0, ${x}_s1, ${x}_s2, ${x}_p, ${x}_sk, ${x}_ni, ${x}_nj, ${x}_k0, kclo_${vi}, kchi_${vi});`,
      );
    }
  }

  /** At each level of a sweep in the tile: the next few lines; in a whole block's last sweep over a field, the lines of it finished. */
  level(): void {
    for (const name of this.prefetched) this.cg.w.line(`${this.staging.prefix(name)}_pf.next();`);
    for (const { name, vi } of this.swept) if (vi === this.whole) this.cg.w.line(`${this.staging.prefix(name)}_ss.done(k + 1);`);
  }

  /**
   * A FORWARD/BACKWARD loop of the tile (`levels` emits its level loop), emitted twice: where
   * every nest's rows are one row of a whole block and the arrays are laid out as one
   * (whole_block), once for that case, decided once a loop rather than at every level: each
   * nest's rows are then one loop of the block's width, over addresses a constant apart,
   * without the row loop, the per-level tests and the strides' reloads around it (Thomas
   * solver 16x64x80 in cache, AVX-512, 1 thread: 1.45 -> 1.27 ns a point with the fence of
   * afterTiles). The same operations on the same addresses: bitwise the same.
   */
  sweep(v: VLoop, levels: () => void): void {
    const w = this.cg.w;
    const fixed = this.fixedStrides().filter(([name]) => v.body.some((h) => touches(h.body, name)));
    const test = [...(fixed.length ? ['whole_block'] : []), ...v.body.map((_, n) => `ihi${n} - ilo${n} == 1 && jhi${n} - jlo${n} == ${this.columns}`)];
    w.open(`if (${test.join(' && ') || 'true'}) {`);
    if (fixed.length) w.line(`[[maybe_unused]] const int64_t ${fixed.map(([, v, c]) => `${v} = ${c}`).join(', ')};`);
    this.whole = this.loops.indexOf(v);
    levels();
    for (const { name, vi } of this.swept) if (vi === this.whole) w.line(`${this.staging.prefix(name)}_ss.done(klo);`);
    this.whole = undefined;
    w.reopen('} else {');
    levels();
    w.close();
  }

  /**
   * A level's rows of nest `h` (the `n`th of its loop): in sweep()'s whole-block loop, one row
   * of the block's width (a loop of one trip around it). Otherwise, where a row is one whole block (all
   * but a domain's last), its loop runs the block's width as a known trip count, so g++
   * vectorizes it without run-time prologue and epilogues (they cost more than the arithmetic
   * on 32 points); and where the staged and tile-local arrays it touches are laid out as one
   * whole block (whole_block: their strides are compared once a tile), their strides are
   * redeclared as those constants, so each level's addresses are a constant apart instead of
   * products of strides held in spilled registers (Thomas solver, 64x64x80, 32 columns,
   * callgrind, AVX2: 16.9 -> 14.8 instructions a point). The same addresses: bitwise the same.
   */
  rows(n: number, h: HLoop, emit: (inner?: string, outer?: string) => void): void {
    const w = this.cg.w;
    const N = this.columns;
    if (this.whole !== undefined) return emit(`for (int64_t j = jlo${n}; j < jlo${n} + ${N}; ++j) {`, `for (int64_t i = ilo${n}; i < ilo${n} + 1; ++i) {`);
    const fixed = this.fixedStrides().filter(([name]) => touches(h.body, name));
    w.open(`if (jhi${n} - jlo${n} == ${N}${fixed.length ? ' && whole_block' : ''}) {`);
    if (fixed.length) w.line(`[[maybe_unused]] const int64_t ${fixed.map(([, v, c]) => `${v} = ${c}`).join(', ')};`);
    emit(`for (int64_t j = jlo${n}; j < jlo${n} + ${N}; ++j) {`);
    w.reopen('} else {');
    emit();
    w.close();
  }

  /**
   * The strides of the staged and tile-local arrays ([K][I][J]) where the tile is laid out as
   * one whole block: one row of N, planes stage_plane(N) (staged) or N (tile-local) apart.
   */
  private fixedStrides(): [string, string, number][] {
    const N = this.columns;
    const ids = this.cg.ids;
    const of = (name: string, plane: number): [string, string, number][] => [
      [name, ids.stride(name, 0), N],
      [name, ids.stride(name, 2), plane],
    ];
    return [...this.staging.staged.flatMap((x) => of(x.name, stagePlane(N))), ...this.locals.flatMap((name) => of(name, N))];
  }

  /** Once a tile: whether its arrays are laid out as one whole block (their strides compared, not assumed). */
  wholeBlock(): void {
    const fixed = this.fixedStrides();
    if (fixed.length) this.cg.w.line(`const bool whole_block = ${fixed.map(([, v, c]) => `${v} == ${c}`).join(' && ')};`);
  }

  /** Whether tiles copy fields back with streaming stores (stage_columns_back). */
  private streams(): boolean {
    return this.staging.staged.some((x) => x.written.length);
  }

  /** The clause of the tile loop's `omp for`: no barrier at its end where afterTiles() fences first. */
  nowait(): string {
    return this.streams() ? ' nowait' : '';
  }

  /**
   * After a thread's last tile: its streaming stores ordered before the barrier, once a thread.
   * A fence after every tile waited for each tile's stores to drain before the next tile's
   * copies could start (16x64x80 in cache: 11% of the time); the thread never reads them
   * back, so one fence before the other threads may is enough.
   */
  afterTiles(openmp: boolean): void {
    if (!this.streams()) return;
    this.cg.w.line('orch::stage_fence();');
    if (openmp) this.cg.w.directive('#pragma omp barrier');
  }
}
