import { fail } from '../../core/diagnostics.js';
import type { Launch } from '../../core/ir/types.js';
import { needsLevelBarrier } from '../../core/ir/columns.js';
import { launchHasCheck, type CheckStmt } from '../../core/ir/debugChecks.js';
import { axisIndices, type ArrayDecl, type AxisBound, type Expr, type HaloStmt, type HLoop, type HorizontalRegion, type Tiling, type VLoop } from '../../core/ir/types.js';
import type { Codegen, PointContext } from './Codegen.js';
import { commentText, cString, locText } from './cText.js';
import { CudaKernels } from './cudaKernels.js';
import { emitHalo } from './haloExchange.js';
import { fusable, type FusedLoop } from './cudaFusion.js';
import type { VariableKParts } from './ExprEmitter.js';
import type { CudaOptions } from './generateCuda.js';
import type { LoopStrategy } from './LoopStrategy.js';

/**
 * CUDA's loops: every HLoop becomes a kernel (cudaKernels.ts), which the host queues in
 * program order on the handle's one stream, and the library shell gains the CUDA handle,
 * `_sync`, `_set_stream` and `report_errors`.
 *
 * What the CPU build reports from inside its loops (a read at a variable K offset outside
 * the array, a failed debug check) a kernel records in the handle's device error record
 * (native/orch_cuda_device.h) and goes on, so the device stays usable. Each place that can
 * record is a numbered *site*; the host reads the record back (after launches with debug
 * checks, and at `sync`) and turns each entry into the CPU build's message with the
 * generated `report_errors`, which knows every site's text.
 */
export class CudaLoops implements LoopStrategy {
  readonly stateType = 'orch::cuda::State';
  readonly includes: readonly string[];
  /** Kernels over whole ranges: a tiled launch's tile-local arrays are ordinary transients here. */
  readonly tilesLaunches = false;
  readonly variableKFailed = 'vk_failed';
  readonly kernels: CudaKernels;
  /** The launch being emitted, as messages (a C string) and comments name it. */
  private launchWhere = '""';
  private launchComment = '';
  /** The body of each site's `case` in `report_errors`, by site number. */
  private readonly sites: string[] = [];

  constructor(
    private readonly cg: Codegen,
    private readonly opts: CudaOptions,
  ) {
    this.includes = ['#include "orch_cuda.h"', `#include "${cg.symbol}_kernels.h"`];
    this.kernels = new CudaKernels(cg, opts);
  }

  private get label(): string {
    return cString(`program '${this.cg.program.name}'`);
  }

  /** Temporaries are laid out like the thread mapping: the preset's last loop axis is contiguous. */
  bufferType(a: ArrayDecl): string {
    const positions = [...this.cg.order].filter((axis) => a.axes.includes(axis)).map((axis) => a.axes.indexOf(axis));
    return `orch::cuda::DeviceBuffer<${positions.join(', ')}>`;
  }

  runPrelude(): void {
    this.cg.w.line(`if (orch::cuda::prepare(st, ${this.label}, ${this.sites.length > 0})) return 1;`);
  }

  beforeRunProgram(): void {
    this.cg.w.line('int report_errors(orch::cuda::State* st, const orch::cuda::ErrorEntry& e);');
    this.cg.w.line('');
  }

  /** `report_errors`: each site's entry in the device error record as the CPU build reports it. */
  afterRunProgram(): void {
    const w = this.cg.w;
    w.line('');
    w.line('/* An entry of the device error record, reported as the CPU build would; nonzero ends the run. */');
    w.open('int report_errors(orch::cuda::State* st, [[maybe_unused]] const orch::cuda::ErrorEntry& e) {');
    w.open('switch (e.site) {');
    this.sites.forEach((body, n) => w.line(`case ${n}: ${body}`));
    w.close();
    w.line(`return orch::fail(st, "%s: the device error record holds an unknown site %d", ${this.label}, (int)e.site);`);
    w.close();
  }

  /** Registers a site: `body` reports its entry `e` (a C++ statement that returns). */
  private site(body: string): number {
    this.sites.push(body);
    return this.sites.length - 1;
  }

  extraExports(api: string): void {
    const w = this.cg.w;
    const st = 'static_cast<orch::cuda::State*>(handle)';
    w.line('');
    w.line(`${api} int ${this.cg.symbol}_sync(void* handle) { return handle ? orch::cuda::sync(${st}, ${this.label}, report_errors) : 1; }`);
    w.line('');
    w.open(`${api} int ${this.cg.symbol}_set_stream(void* handle, void* stream) {`);
    w.line(`return handle ? orch::cuda::set_stream(${st}, ${this.label}, stream) : 1;`);
    w.close();
  }

  /** Field data must be device memory. */
  checkArguments(): void {
    this.cg.program.params.forEach((param, n) => {
      if (param.kind !== 'field') return;
      this.cg.w.line(`if (orch::cuda::check_device_arg(st, ${this.label}, ${n}, ${cString(param.name)}, ${this.cg.ids.view(param.name)}.data)) return 1;`);
    });
  }

  beginLaunch(s: Launch): void {
    const text = `program '${this.cg.program.name}': stencil '${s.stencil}' at ${locText(s.loc)}`;
    this.launchWhere = cString(text);
    this.launchComment = commentText(text);
  }

  // The CPU's host-side `vkerr` has no place here: kernels record into the handle's record.
  beginLoops(): void {}

  /**
   * Consecutive PARALLEL loop nests share a kernel where cudaFusion.ts allows it (never in a
   * launch with debug checks: their reports keep the CPU build's order); every other VLoop
   * is emitted on its own.
   */
  loops(s: Launch, tile: Tiling | undefined, ctx: PointContext): void {
    void tile; // never set: tilesLaunches is false
    const fuse = !launchHasCheck(s);
    let group: FusedLoop[] = [];
    const flush = (): void => {
      if (group.length) this.parallel(group, ctx);
      group = [];
    };
    for (const v of s.loops) {
      if (v.order !== 'PARALLEL') {
        flush();
        this.vloop(v, ctx);
        continue;
      }
      for (const h of v.body) {
        const next = { v, h };
        if (group.length && !(fuse && fusable(group, next, (name) => this.cg.array(name).axes))) flush();
        group.push(next);
      }
    }
    flush();
  }

  /** The host side of PARALLEL loop nests run by one kernel: each one's ranges, then the launcher call. */
  private parallel(group: FusedLoop[], ctx: PointContext): void {
    const w = this.cg.w;
    const int64 = (e: Expr): string => this.cg.int64(e);
    w.open('{');
    group.forEach(({ v, h }, m) => {
      w.line(`const int64_t klo${m} = ${int64(v.k.lo)}, khi${m} = ${int64(v.k.hi)};`);
      const range = `${int64(h.i.lo)}, ${int64(h.i.hi)}, ${int64(h.j.lo)}, ${int64(h.j.hi)}`;
      const regions = regionOnly(h);
      if (!regions) {
        w.line(`const int64_t ilo${m} = ${int64(h.i.lo)}, ihi${m} = ${int64(h.i.hi)}, jlo${m} = ${int64(h.j.lo)}, jhi${m} = ${int64(h.j.hi)};`);
        return;
      }
      // every statement is in a region: threads only where some region meets the range
      if (!regions.length) {
        w.line(`const int64_t ilo${m} = 0, ihi${m} = 0, jlo${m} = 0, jhi${m} = 0;  // no region: nothing runs`);
        return;
      }
      w.line(`int64_t range${m}[4] = {${range}};`);
      w.line(`const int64_t boxes${m}[][4] = {${regions.map(regionBox).join(', ')}};`);
      w.line(`orch::cuda::narrow_to_regions(range${m}, boxes${m}, ${regions.length});`);
      w.line(`const int64_t ilo${m} = range${m}[0], ihi${m} = range${m}[1], jlo${m} = range${m}[2], jhi${m} = range${m}[3];`);
    });
    const nonEmpty = group.map((_, m) => `(ihi${m} > ilo${m} && jhi${m} > jlo${m} && khi${m} > klo${m})`);
    const call = this.kernels.sweep('points', group.map((l) => l.v), group.map((l) => l.v.body.indexOf(l.h)), ctx, this.launchComment);
    w.open(`if (${nonEmpty.join(' || ')}) {`);
    this.callLauncher(call);
    w.close();
    w.close();
  }

  /**
   * Debug checks are read back right after their launch, so an abort-mode failure ends the
   * run there and log-mode reports come out in program order, as on the CPU (a debug build
   * waits for each checked launch). Variable-K reads wait for `sync`, unless every launch
   * is synchronized anyway.
   */
  endLaunch(s: Launch, ctx: PointContext): void {
    if (launchHasCheck(s) || (ctx.variableK && this.opts.syncLaunches)) {
      this.cg.w.line(`if (orch::cuda::read_errors(st, ${this.launchWhere}, report_errors)) return 1;`);
    }
  }

  /** Records the run's first point failure into the handle's record and ends this thread's loops; the host reports it. */
  pointFailure(message: string): string {
    const site = this.site(`return orch::fail(st, "%s", ${message});`);
    return `vk_failed = true; if (orch::cuda::ErrorEntry* e = orch::cuda::claim_stop(errors)) orch::cuda::fill(e, ${site}, 0, 0, 0, i, j, k, 0.0);`;
  }

  variableKRead(r: VariableKParts): string {
    const site = this.site(`return orch::vk_report(st, ${r.head}, ${r.tail}, e.n[0], e.n[1], e.i, e.j, e.k${r.unit === 'entries' ? ', "entries"' : ''});`);
    return `orch::cuda::vk_read(${r.base}, ${r.stride}, ${r.idx}, ${r.lo}, ${r.hi}, errors, vk_failed, ${site}, i, j, k)`;
  }

  variableKWrite(r: VariableKParts, value: string): string {
    const site = this.site(`return orch::vk_report(st, ${r.head}, ${r.tail}, e.n[0], e.n[1], e.i, e.j, e.k);`);
    return `orch::cuda::vk_write(${r.base}, ${r.stride}, ${r.idx}, ${r.lo}, ${r.hi}, ${value}, errors, vk_failed, ${site}, i, j, k);`;
  }

  /** Device arrays, staged through host buffers by native/orch_halo.h (MPI on host memory). */
  halo(s: HaloStmt): void {
    this.cg.mapped(s.loc, () => emitHalo(this.cg.w, this.cg.program, s, (name) => this.cg.ids.view(name)));
  }

  /** A debug check in a kernel: the array indices come from the origin parameters. */
  check(s: CheckStmt, ctx: PointContext): void {
    const { value, test, format } = this.cg.points.checkParts(s, ctx);
    const axes = axisIndices(this.cg.array(s.target).axes);
    const abort = s.check.action === 'abort';
    const values = [...(s.check.test === 'nan' ? [] : ['e.value']), ...axes.map((_, pos) => `(long long)e.n[${pos}]`)];
    const site = this.site(
      `{ char msg[512]; std::snprintf(msg, sizeof msg, ${format}, ${values.join(', ')}); orch::debug_report(st, ${abort}, msg); return ${abort ? 1 : 0}; }`,
    );
    const idx = [0, 1, 2].map((pos) => (pos < axes.length ? `${this.cg.ids.originParam(s.target, pos)} + ${'ijk'[axes[pos]]}${axes[pos] === 2 && s.kOffset ? ` + ${s.kOffset}` : ''}` : '0'));
    this.cg.mapped(s.loc, () => this.cg.w.line(`if (${test}) orch::cuda::check_failed(errors, ${abort}, ${site}, ${value}, ${idx.join(', ')}, i, j, k);`));
  }

  /** The host side of a FORWARD or BACKWARD VLoop: its ranges, then launcher calls in IR order. */
  private vloop(v: VLoop, ctx: PointContext): void {
    const w = this.cg.w;
    const int64 = (e: Expr): string => this.cg.int64(e);
    const sweep = (kind: 'points' | 'column' | 'level', indices: number[]): string => this.kernels.sweep(kind, v, indices, ctx, this.launchComment);
    w.open('{');
    w.line(`const int64_t klo = ${int64(v.k.lo)}, khi = ${int64(v.k.hi)};`);
    v.body.forEach((h, n) => {
      w.line(`const int64_t ilo${n} = ${int64(h.i.lo)}, ihi${n} = ${int64(h.i.hi)}, jlo${n} = ${int64(h.j.lo)}, jhi${n} = ${int64(h.j.hi)};`);
    });
    const nonEmpty = (n: number): string => `ihi${n} > ilo${n} && jhi${n} > jlo${n}`;
    if (!needsLevelBarrier(v)) {
      const all = v.body.map((_, n) => n);
      const call = sweep('column', all);
      w.open(`if (khi > klo && (${all.map((n) => `(${nonEmpty(n)})`).join(' || ')})) {`);
      this.callLauncher(call);
      w.close();
    } else {
      const calls = v.body.map((_, n) => sweep('level', [n]));
      w.open(v.order === 'FORWARD' ? 'for (int64_t k = klo; k < khi; ++k) {' : 'for (int64_t k = khi - 1; k >= klo; --k) {');
      calls.forEach((call, n) => {
        w.open(`if (${nonEmpty(n)}) {`);
        this.callLauncher(call);
        w.close();
      });
      w.close();
    }
    w.close();
  }

  private callLauncher(call: string): void {
    const sync = this.opts.syncLaunches ? 'true' : 'false';
    this.cg.w.line(`if (orch::cuda::launched(st, ${this.launchWhere}, ${call}, ${sync})) return 1;`);
  }
}

/** The regions of a loop nest whose statements all sit in horizontal regions, else null. */
function regionOnly(h: HLoop): HorizontalRegion[] | null {
  if (!h.body.length || !h.body.every((s) => s.kind === 'region')) return null;
  return h.body.flatMap((s) => (s.kind === 'region' ? s.regions : []));
}

/** A region as {ilo, ihi, jlo, jhi} in the launch domain's indices (dom0, dom1 on the host); open ends unbounded. */
function regionBox(r: HorizontalRegion): string {
  const bound = (b: AxisBound | null, dom: string, open: string): string => {
    if (!b) return open;
    const o = Math.trunc(b.offset);
    return b.level === 'start' ? `${o}LL` : `${dom} + (${o}LL)`;
  };
  return `{${bound(r.i.start, 'dom0', 'INT64_MIN')}, ${bound(r.i.end, 'dom0', 'INT64_MAX')}, ${bound(r.j.start, 'dom1', 'INT64_MIN')}, ${bound(r.j.end, 'dom1', 'INT64_MAX')}}`;
}
