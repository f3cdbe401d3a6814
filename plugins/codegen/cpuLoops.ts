import { carriesRecurrence, independentColumns } from '../../core/ir/columns.js';
import { launchHasCheck, type CheckStmt } from '../../core/ir/debugChecks.js';
import { axisIndices, type ArrayDecl, type Expr, type HaloStmt, type HLoop, type Launch, type Tiling, type VLoop } from '../../core/ir/types.js';
import type { Codegen, CppOptions, PointContext } from './Codegen.js';
import { convert } from './cText.js';
import type { VariableKParts } from './ExprEmitter.js';
import { emitHalo } from './haloExchange.js';
import type { LoopStrategy } from './LoopStrategy.js';
import { SweepStaging } from './sweepStaging.js';
import { SweepBlocks, blockColumns, stagesSweeps } from './sweepBlocks.js';
import { blockTile, reshapedTile, sweepTileStages } from './sweepTileKind.js';
import { jammedColumns } from './columnJam.js';
import { fusedLoop } from './fusedLoop.js';
import { ColumnPrefetch } from './columnPrefetch.js';
import { emitRegionSplit, regionSplit, type RegionSplit } from './regionSplit.js';
import { fusionDelays, rollingRows, type Delay } from '../../core/ir/nestFusion.js';
import { vectorWidthPragma } from './vectorWidth.js';
import { TileVersionCode } from './tileVersions.js';
import { streamedVersions, type RowHooks } from './streamedVersions.js';
import { StreamedOutputs } from './streamedOutputs.js';
import { tileScratch } from './tileScratch.js';
import { bothRowHooks, rollsZeroed, zeroedRows } from './zeroedRows.js';
import { nestBounds, tileCounts } from './tileCuts.js';
import { ThreadedRegions } from './threadedRegion.js';
import { touches } from '../../core/ir/uses.js';

/** The loop order of a level by level sweep: K outermost, then I and J as in `order`. */
function planeOrder(order: string): string {
  return `K${[...order].filter((c) => c !== 'K').join('')}`;
}

/**
 * The CPU's loops: each HLoop a 3-D nest in the preset's loop order, threads (OpenMP)
 * over its outer loops; a FORWARD/BACKWARD VLoop column by column when its columns are
 * independent, else level by level; a tiled launch tile by tile, its tile-local arrays in
 * the thread's scratch arena. Run-time errors found inside the loops are caught on the
 * host: variable-K reads record into a `VarKError` on the stack, checks into the handle.
 */
export class CpuLoops implements LoopStrategy {
  readonly stateType = 'orch::State';
  get includes(): readonly string[] {
    return ['#include "orch_stage.h"', '#include "orch_stream.h"', '#include "orch_prefetch.h"', ...vectorWidthPragma(this.cg.opts.vectorWidth)];
  }
  readonly tilesLaunches = true;
  readonly variableKFailed = 'vkerr.set.load(std::memory_order_relaxed)';
  /** Set while generating the loops of one tile: the index of the vertical loop. */
  private tileScope: number | undefined;
  private readonly regions: ThreadedRegions;
  /** Inside a tile of a launch with FORWARD/BACKWARD loops: every nest runs level by level. */
  private tileOrder: string | undefined;
  /** Inside a tile cut along K: its levels per tile (most tiles have exactly this many). */
  private tileK: number | undefined;
  /** Inside a staged sweep tile (sweepStaging.ts): rows are long and contiguous, so their loops are unrolled twice. */
  private unrollRows = false;
  /** Inside a tile of codegen.sweepBlock columns: its prefetches, a few lines each level. */
  private blocks: SweepBlocks | undefined;
  /** The fill and commit of versions streamed through the fused loop of the tile being emitted (streamedVersions.ts). */
  private rowHooks: RowHooks | undefined;
  /** While generating the two paths of a launch with blocks (loops): its blocks, or its fallback, the launch as built without codegen.sweepBlock. */
  private sweepPath: 'blocks' | 'plain' | undefined;
  /** Inside a tiled launch with fused nests: the outputs they stream (codegen.streamOutputs), the prefetches of their columns (codegen.prefetchColumns). */
  private outputs: StreamedOutputs | undefined;
  private prefetch: ColumnPrefetch | undefined;

  constructor(private readonly cg: Codegen) {
    this.regions = new ThreadedRegions(cg);
  }

  bufferType(a: ArrayDecl): string {
    void a;
    return 'orch::Buffer';
  }
  beforeRunProgram(): void {}
  afterRunProgram(): void {}
  runPrelude(): void {}
  extraExports(api: string): void {
    void api;
  }
  checkArguments(): void {}
  beginLaunch(s: Launch): void {
    void s;
  }

  beginLoops(ctx: PointContext): void {
    if (ctx.variableK) this.cg.w.line('orch::VarKError vkerr;');
  }

  loops(s: Launch, tile: Tiling | undefined, ctx: PointContext, where: string): void {
    if (tile && this.sweepPath === undefined && blockTile(this.cg, this.sweepOpts(), s, tile)) {
      // blocks only where they pay (orch::sweep_blocks: AVX-512, a domain past L2), else the
      // launch as built without codegen.sweepBlock
      const w = this.cg.w;
      w.open('if (orch::sweep_blocks(dom0 * dom1 * dom2, orch::max_threads())) {');
      this.sweepPath = 'blocks';
      this.loops(s, tile, ctx, where);
      w.reopen('} else {');
      this.sweepPath = 'plain';
      this.loops(s, tile, ctx, where);
      this.sweepPath = undefined;
      w.close();
      return;
    }
    if (tile && !sweepTileStages(this.cg, this.sweepOpts(), s, tile)) tile = undefined;
    if (tile) {
      this.tiledLoops(s, tile, ctx, where);
      this.afterVLoop(ctx);
    } else {
      for (const v of s.loops) {
        this.vloop(v, ctx);
        this.afterVLoop(ctx);
      }
    }
  }

  /** The code generation options of sweeps: without codegen.sweepBlock in a launch's fallback (sweepPath). */
  private sweepOpts(): CppOptions {
    return this.sweepPath === 'plain' ? { ...this.cg.opts, sweepBlock: false } : this.cg.opts;
  }

  /** After each VLoop of a launch: a variable-K read that failed ends the run here. */
  private afterVLoop(ctx: PointContext): void {
    if (ctx.variableK) this.cg.w.line('if (vkerr.set.load()) return vkerr.report(st);');
  }

  /** After a launch: an abort-mode debug check that failed ends the run here. */
  endLaunch(s: Launch, ctx: PointContext): void {
    void ctx;
    if (launchHasCheck(s, (c) => c.action === 'abort')) this.cg.w.line('if (st->debug_failed) return 1;');
  }

  /** Records the run's first point failure; the loops end and the launch reports it (see orch::VarKError). */
  pointFailure(message: string): string {
    return `vkerr.record_message(${message});`;
  }

  /** A checked read at a variable K offset (see orch::vk_read). */
  variableKRead(r: VariableKParts): string {
    return `orch::vk_read(${r.base}, ${r.stride}, ${r.idx}, ${r.lo}, ${r.hi}, vkerr, ${r.head}, ${r.tail}, i, j, k${r.unit === 'entries' ? ', "entries"' : ''})`;
  }

  variableKWrite(r: VariableKParts, value: string): string {
    return `orch::vk_write(${r.base}, ${r.stride}, ${r.idx}, ${r.lo}, ${r.hi}, ${value}, vkerr, ${r.head}, ${r.tail}, i, j, k);`;
  }

  /** A halo exchange on host arrays (native/orch_halo.h). */
  halo(s: HaloStmt): void {
    this.cg.mapped(s.loc, () => emitHalo(this.cg.w, this.cg.program, s, (name) => this.cg.ids.view(name)));
  }

  /** A debug check of the value just written; reports name the program, stencil, line and i, j, k. */
  check(s: CheckStmt, ctx: PointContext): void {
    const w = this.cg.w;
    const { value, test, format } = this.cg.points.checkParts(s, ctx);
    const origin = ctx.origins[s.target] ?? [];
    const idx = axisIndices(this.cg.array(s.target).axes).map((ax, pos) => `(long long)(${convert(this.cg.ex.expr(origin[pos] ?? { kind: 'lit', value: 0, dtype: 'int64' }, undefined), 'int64', 'int64')} + ${'ijk'[ax]}${ax === 2 && s.kOffset ? ` + ${s.kOffset}` : ''})`);
    const args = [...(s.check.test === 'nan' ? [] : [value]), ...idx];
    this.cg.mapped(s.loc, () => w.open(`if (${test}) {`));
    w.line('char msg[512];');
    w.line(`std::snprintf(msg, sizeof msg, ${format}${args.length ? `, ${args.join(', ')}` : ''});`);
    w.line(`orch::debug_report(st, ${s.check.action === 'abort' ? 'true' : 'false'}, msg);`);
    w.close();
  }

  /**
   * A tiled launch (see Tiling in core/ir/types.ts): threads take tiles; in each tile every
   * loop runs over its nests' ranges clipped to the tile (grown by each nest's growth), and
   * tile-local arrays are placed in the thread's scratch arena, sized to what the tile's
   * nests touch, with the preset's innermost loop axis contiguous.
   */
  private tiledLoops(s: Launch, tile: Tiling, ctx: PointContext, where: string): void {
    const w = this.cg.w;
    const int64 = (e: Expr): string => convert(this.cg.ex.expr(e, undefined), e.dtype, 'int64');
    const [ti0, tj0] = tile.size;
    w.open('{');
    // A launch with FORWARD/BACKWARD loops runs them level by level in a tile (vloop), so
    // there every nest runs K outermost and tile-local arrays are laid out to match.
    const tileOrder = s.loops.some((v) => v.order !== 'PARALLEL') ? planeOrder(this.cg.order) : undefined;
    const staged = tileOrder !== undefined && stagesSweeps(this.sweepOpts());
    // such a tile, staged, is reshaped (reshapedTile), or, with codegen.sweepBlock, is a block of a row (sweepBlocks.ts)
    const reshaped = staged && reshapedTile(this.sweepOpts(), s, tile);
    const columns = reshaped ? blockColumns(this.sweepOpts()) : undefined;
    const sweepLevels = s.loops.flatMap((v, vi) => (v.order === 'PARALLEL' ? [] : [`(kchi_${vi} - kclo_${vi})`])).join(' + ');
    const staging = staged ? new SweepStaging(this.cg, s, tile, columns !== undefined) : undefined;
    const blocks = columns !== undefined && staging ? new SweepBlocks(this.cg, columns, staging, sweepLevels, tile.local.map((l) => l.name), s.loops) : undefined;
    if (blocks) blocks.shape();
    else if (reshaped) w.line(`const int64_t tsj = std::min<int64_t>(${ti0 * tj0}, std::max<int64_t>(1, dom1)), tsi = std::max<int64_t>(1, ${ti0 * tj0} / tsj);`);
    const ti = reshaped ? 'tsi' : String(ti0);
    const tj = reshaped ? 'tsj' : String(tj0);
    const nests: { vi: number; n: number; h: HLoop; name: string }[] = [];
    s.loops.forEach((v, vi) => {
      w.line(`const int64_t klo_${vi} = ${int64(v.k.lo)}, khi_${vi} = ${int64(v.k.hi)};`);
      v.body.forEach((h, n) => {
        const name = `${vi}_${n}`;
        nests.push({ vi, n, h, name });
        w.line(`const int64_t Ilo_${name} = ${int64(h.i.lo)}, Ihi_${name} = ${int64(h.i.hi)}, Jlo_${name} = ${int64(h.j.lo)}, Jhi_${name} = ${int64(h.j.hi)};`);
      });
    });
    const tk = tile.k;
    tileCounts(this.cg, ti, tj, tk);
    const points = nests.map(({ vi, name }) => `(Ihi_${name} - Ilo_${name}) * (Jhi_${name} - Jlo_${name}) * (khi_${vi} - klo_${vi})`).join(' + ');
    w.line(`if (st->tiles.prepare(orch::max_threads())) return orch::fail(st, "%s: out of memory for the tile scratch arenas", ${where});`);
    w.line('std::atomic<int> tile_oom{0};');
    // fused nests' outputs streamed past the caches, where this call's domain is past L2 (codegen.streamOutputs)
    const outputs = this.cg.opts.streamOutputs && this.fusedOuterAxis(tileOrder) !== undefined ? new StreamedOutputs(this.cg, s, tile) : undefined;
    outputs?.decide(points);
    const distance = this.cg.opts.prefetchColumns;
    const prefetch = distance && this.fusedOuterAxis(tileOrder) !== undefined ? new ColumnPrefetch(this.cg, points, distance) : undefined;
    this.regions.open(this.cg.opts.openmp, `${points} >= ORCH_OMP_MIN_POINTS`, ctx, ['tile_oom']);
    w.line('orch::Arena& scratch = st->tiles.of(orch::thread_index());');
    if (this.cg.opts.openmp) w.directive(`#pragma omp for collapse(3) schedule(static)${blocks?.nowait() ?? ''}`);
    w.open('for (int64_t ti = 0; ti < nti; ++ti) {');
    w.open('for (int64_t tj = 0; tj < ntj; ++tj) {');
    w.open('for (int64_t tk = 0; tk < ntk; ++tk) {');
    s.loops.forEach((_, vi) => {
      if (!tk) w.line(`const int64_t kclo_${vi} = klo_${vi}, kchi_${vi} = khi_${vi};`);
      else w.line(`const int64_t kclo_${vi} = tk == 0 ? klo_${vi} : std::max<int64_t>(klo_${vi}, tk * ${tk}), kchi_${vi} = tk == ntk - 1 ? khi_${vi} : std::min<int64_t>(khi_${vi}, (tk + 1) * ${tk});`);
    });
    nestBounds(this.cg, nests, reshaped ? [ti, tj] : tile.size);
    // each tile-local array covers the points the tile's nests touch, offsets included
    w.line('size_t tile_bytes = 0;');
    const versions = new TileVersionCode(this.cg, s, tile);
    versions.keepGlobals();
    // a sweep's fields are copied into [K][I][J] buffers first (sweepStaging.ts)
    staging?.reserve();
    // fused nests keep only the rows of a temporary still to be read (fusedNests.ts)
    const rolled = this.rolledArrays(s, tile, tileOrder);
    const rollAxis = this.cg.order[0].toLowerCase();
    const box = (name: string) => this.cg.ids.local(`tile_${name}`);
    const outer = this.fusedOuterAxis(tileOrder);
    // versions filled and committed row by row inside the fused loop (codegen.streamVersions; rolled too with codegen.rollVersions)
    const fused = (regions: boolean) => (outer === undefined ? undefined : fusionDelays(s.loops[0], outer, regions, this.strip() !== undefined));
    const streamed = streamedVersions(this.cg, s, tile, versions, fused(false), box, rolled, this.strip());
    this.rowHooks = bothRowHooks(streamed, zeroedRows(this.cg, s.loops[0], fused(this.cg.opts.fuseRegions === true), tile.local.filter((l) => l.zeroFill).map((l) => l.name), rolled, box));
    // the tile-local arrays and versions in the thread's scratch arena
    tileScratch(this.cg, s, tile, { tileOrder, rolled, rollAxis }, ctx);
    ctx.rolled = new Map([...rolled].map(([name, rows]) => [name, { axis: rollAxis === 'i' ? 0 : 1, mask: rows - 1 }]));
    if (!streamed) versions.fill(box, tileOrder ?? this.cg.order);
    staging?.stageIn();
    blocks?.prefetchNext();
    blocks?.wholeBlock();
    this.blocks = blocks;
    this.tileOrder = tileOrder;
    this.tileK = tile.k;
    this.unrollRows = staged;
    this.outputs = outputs;
    this.prefetch = prefetch;
    s.loops.forEach((v, vi) => {
      this.tileScope = vi;
      this.vloop(v, ctx);
    });
    this.tileScope = undefined;
    this.tileOrder = undefined;
    this.tileK = undefined;
    this.unrollRows = false;
    this.outputs = undefined;
    this.prefetch = undefined;
    ctx.rolled = undefined;
    if (!streamed) versions.commit();
    this.rowHooks = undefined;
    staging?.stageOut();
    this.blocks = undefined;
    outputs?.fence();
    for (let d = 0; d < 3; d++) w.close();
    blocks?.afterTiles(this.cg.opts.openmp);
    if (versions.publishes()) {
      // after every tile has read its neighbours' input values (the barrier ending the loop above)
      if (this.cg.opts.openmp) w.directive('#pragma omp for collapse(3) schedule(static)');
      w.open('for (int64_t ti = 0; ti < nti; ++ti) {');
      w.open('for (int64_t tj = 0; tj < ntj; ++tj) {');
      w.open('for (int64_t tk = 0; tk < ntk; ++tk) {');
      versions.publish();
      for (let d = 0; d < 3; d++) w.close();
    }
    this.regions.close(this.cg.opts.openmp);
    prefetch?.finish();
    w.line(`if (tile_oom.load()) return orch::fail(st, "%s: out of memory for the tile scratch arenas", ${where});`);
    w.close();
  }

  // Where a launch's run-time errors (variable K reads, debug checks) are caught. On the
  // CPU, reads record into a `VarKError` on the stack and checks into the handle.
  // -------------------------------------------------------------------------------------
  // Loops

  private vloop(v: VLoop, ctx: PointContext): void {
    const w = this.cg.w;
    const int64 = (e: Expr): string => convert(this.cg.ex.expr(e, undefined), e.dtype, 'int64');
    w.open('{');
    const t = this.tileScope;
    if (t === undefined) {
      w.line(`const int64_t klo = ${int64(v.k.lo)}, khi = ${int64(v.k.hi)};`);
      v.body.forEach((h, n) => {
        w.line(`const int64_t ilo${n} = ${int64(h.i.lo)}, ihi${n} = ${int64(h.i.hi)}, jlo${n} = ${int64(h.j.lo)}, jhi${n} = ${int64(h.j.hi)};`);
      });
    } else {
      // inside a tile: the ranges clipped to it (tiledLoops)
      w.line(`const int64_t klo = kclo_${t}, khi = kchi_${t};`);
      v.body.forEach((_, n) => w.line(`const int64_t ilo${n} = ilo_${t}_${n}, ihi${n} = ihi_${t}_${n}, jlo${n} = jlo_${t}_${n}, jhi${n} = jhi_${t}_${n};`));
    }
    const delays = this.fusion(v);
    // (or fused in the tiles where its region-only nests run nothing: codegen.splitRegionTiles)
    const split = delays || !this.cg.opts.splitRegionTiles || t === undefined ? undefined : this.fusion(v, true);
    if (delays) {
      fusedLoop(this.cg, v, delays, ctx, this.tileK, this.rowHooks, this.outputs, this.prefetch, this.strip());
    } else if (split) {
      emitRegionSplit(w, split, t!, () => fusedLoop(this.cg, split.sub, split.delays, ctx, this.tileK, this.rowHooks, this.outputs, this.prefetch), () => v.body.forEach((h, n) => this.parallelNest(h, n, ctx)));
    } else if (v.order === 'PARALLEL') {
      v.body.forEach((h, n) => this.parallelNest(h, n, ctx));
    } else if (this.tileScope === undefined && independentColumns(v, this.cg.arrays)) {
      // (inside a tile, level by level instead: the tile's columns are independent chains
      // a core overlaps, where one column at a time waits on each level's divide)
      this.columnNest(v, ctx);
    } else {
      const points = v.body.map((_, n) => `(ihi${n} - ilo${n}) * (jhi${n} - jlo${n})`).join(' + ') || '0';
      const threaded = this.threaded();
      this.regions.open(threaded, `${points} >= ORCH_OMP_MIN_POINTS`, ctx);
      const levels = () => {
        w.open(v.order === 'FORWARD' ? 'for (int64_t k = klo; k < khi; ++k) {' : 'for (int64_t k = khi - 1; k >= klo; --k) {');
        this.blocks?.level();
        v.body.forEach((h, n) => this.planeNest(h, n, ctx));
        w.close();
      };
      if (this.blocks) this.blocks.sweep(v, levels);
      else levels();
      this.regions.close(threaded);
    }
    w.close();
  }

  /**
   * The outer axis (0: I, 1: J) of the fused loops in a tile of this order (codegen.fuseNests),
   * or undefined where nests run one after another. One rule for the loops (fusion) and for
   * the arrays that keep only a few rows (rolledArrays): a rolled array read by unfused nests
   * would give wrong numbers.
   */
  private fusedOuterAxis(tileOrder: string | undefined): 0 | 1 | undefined {
    const order = this.cg.order;
    if (!this.cg.opts.fuseNests || tileOrder !== undefined || !order.endsWith('K')) return undefined;
    return order[0] === 'I' ? 0 : 1;
  }

  /** The delays of a PARALLEL loop's nests fused in a tile (codegen.fuseNests), or undefined where they run one after another. */
  private fusion(v: VLoop): Delay[] | undefined;
  private fusion(v: VLoop, split: true): RegionSplit | undefined;
  private fusion(v: VLoop, split = false): Delay[] | RegionSplit | undefined {
    const outer = this.tileScope === undefined ? undefined : this.fusedOuterAxis(this.tileOrder);
    return outer === undefined ? undefined : split ? regionSplit(v, outer) : fusionDelays(v, outer, this.cg.opts.fuseRegions === true, this.strip() !== undefined);
  }

  /**
   * Columns per strip of the fused loops (codegen.fusedStrip), or undefined for one strip. With
   * strips no array is rolled (rolledArrays): a strip reads the columns its predecessor wrote
   * in every row, which a few rows' slots no longer hold.
   */
  private strip(): number | undefined {
    const s = this.cg.opts.fusedStrip;
    return typeof s === 'number' ? s : undefined;
  }

  /**
   * The tile-local arrays fused nests roll (codegen.fuseNests), with their rows along the
   * outer axis: those only one fused loop touches, none that starts zero-filled (a reused slot
   * keeps the old row's values) unless rollVersions lays its zeros again (zeroedRows.ts).
   */
  private rolledArrays(s: Launch, tile: Tiling, tileOrder: string | undefined): Map<string, number> {
    const out = new Map<string, number>();
    const outer = this.fusedOuterAxis(tileOrder);
    if (outer === undefined || this.strip() !== undefined) return out;
    for (const l of tile.local) {
      const users = s.loops.filter((v) => v.body.some((h) => touches(h.body, l.name)));
      if (users.length !== 1 || (l.zeroFill && !(outer === 0 && rollsZeroed(this.cg, s, users[0], l.name)))) continue;
      const delays = fusionDelays(users[0], outer, this.cg.opts.fuseRegions === true);
      const rows = delays && rollingRows(users[0], delays, outer, l.name);
      if (rows !== undefined) out.set(l.name, rows);
    }
    return out;
  }

  /**
   * A FORWARD/BACKWARD sweep whose columns are independent, column by column: threads over
   * I and J, each walking K in order through every nest. With K contiguous in memory this
   * streams each column instead of striding across planes level by level.
   */
  private columnNest(v: VLoop, ctx: PointContext): void {
    const w = this.cg.w;
    const ij = [...this.cg.order].filter((c) => c !== 'K');
    const threaded = this.threaded();
    this.regions.open(threaded, '(ihi0 - ilo0) * (jhi0 - jlo0) * (khi - klo) >= ORCH_OMP_MIN_POINTS', ctx);
    if (threaded) w.directive('#pragma omp for collapse(2)');
    w.open(this.loopHeader(ij[0], 0));
    if (carriesRecurrence(v)) {
      jammedColumns(this.cg, ij[1].toLowerCase(), v.order === 'FORWARD', v.body, ctx);
      w.close();
      this.regions.close(threaded);
      return;
    }
    w.open(this.loopHeader(ij[1], 0));
    w.open(v.order === 'FORWARD' ? 'for (int64_t k = klo; k < khi; ++k) {' : 'for (int64_t k = khi - 1; k >= klo; --k) {');
    for (const h of v.body) {
      w.open('{');
      this.cg.points.pointLocals(h, ctx);
      this.cg.points.stmts(h.body, ctx);
      w.close();
    }
    w.close();
    w.close();
    w.close();
    this.regions.close(threaded);
  }

  /** Loops spread over threads, except inside a tile (a thread runs a whole tile). */
  private threaded(): boolean {
    return this.cg.opts.openmp && this.tileScope === undefined;
  }

  private loopHeader(axis: string, n: number): string {
    if (axis === 'K') return 'for (int64_t k = klo; k < khi; ++k) {';
    const v = axis.toLowerCase();
    return `for (int64_t ${v} = ${v}lo${n}; ${v} < ${v}hi${n}; ++${v}) {`;
  }

  /**
   * Before an innermost loop: its points are independent (vectorize freely); in a staged
   * sweep tile also unrolled twice, which halves the loop control of its long vector loops
   * (vertical solver 128x128x80: 16.58M -> 15.49M instructions per call, callgrind, AVX2).
   */
  private innerDirectives(): void {
    this.cg.w.directive('#pragma GCC ivdep');
    if (this.unrollRows) this.cg.w.directive('#pragma GCC unroll 2');
  }

  /** A PARALLEL HLoop: a 3-D nest in the preset order, threads over the outer two loops. */
  private parallelNest(h: HLoop, n: number, ctx: PointContext): void {
    const w = this.cg.w;
    const threaded = this.threaded();
    this.regions.open(threaded, `(ihi${n} - ilo${n}) * (jhi${n} - jlo${n}) * (khi - klo) >= ORCH_OMP_MIN_POINTS`, ctx);
    if (threaded) w.directive('#pragma omp for collapse(2)');
    const order = this.tileOrder ?? this.cg.order;
    const tk = this.tileScope !== undefined && order.endsWith('K') ? this.tileK : undefined;
    if (tk) {
      // A tile cut along K mostly holds exactly tk levels: with that trip count known, g++
      // unrolls the vector loop without its run-time prologue and epilogues, which cost
      // more than the arithmetic on short columns (hdiff: 27 -> 13 instructions a point).
      w.open(`if (khi - klo == ${tk}) {`);
      this.nestLoops(h, n, ctx, order, `for (int64_t k = klo; k < klo + ${tk}; ++k) {`);
      w.reopen('} else {');
      this.nestLoops(h, n, ctx, order);
      w.close();
    } else {
      this.nestLoops(h, n, ctx, order);
    }
    this.regions.close(threaded);
  }

  /** The three loops of one PARALLEL nest around its points (`kHeader`: the K loop's, if given). */
  private nestLoops(h: HLoop, n: number, ctx: PointContext, order: string, kHeader?: string): void {
    const w = this.cg.w;
    [...order].forEach((axis, depth) => {
      // Points of one HLoop are independent, so the innermost loop may be vectorized freely.
      if (depth === 2) this.innerDirectives();
      w.open(axis === 'K' && kHeader ? kHeader : this.loopHeader(axis, n));
    });
    this.cg.points.pointLocals(h, ctx);
    this.cg.points.stmts(h.body, ctx);
    for (let d = 0; d < 3; d++) w.close();
  }

  /** One level of a FORWARD/BACKWARD HLoop; the `omp for` ends with the barrier between nests. */
  private planeNest(h: HLoop, n: number, ctx: PointContext): void {
    const w = this.cg.w;
    const ij = [...this.cg.order].filter((c) => c !== 'K');
    if (this.threaded()) w.directive('#pragma omp for');
    const rows = (inner?: string, outer?: string) => {
      w.open(outer ?? this.loopHeader(ij[0], n));
      this.innerDirectives();
      w.open(inner ?? this.loopHeader(ij[1], n));
      this.cg.points.pointLocals(h, ctx);
      this.cg.points.stmts(h.body, ctx);
      w.close();
      w.close();
    };
    if (this.blocks && ij[1] === 'J') this.blocks.rows(n, h, rows);
    else rows();
  }
}
