import type { LaunchStmt } from '../../core/ir/accessBounds.js';
import { fail } from '../../core/diagnostics.js';
import type { ProgramSignature } from '../../core/runtime/NativeLibrary.js';
import { axisIndices, type ArrayDecl, type Expr, type HaloStmt, type HLoop, type Offset, type Program, type SourceLoc, type Stmt, type VLoop } from '../../core/ir/types.js';
import { checkTargets, forEachExpr, reads, writes } from '../../core/ir/walk.js';
import {
  CTYPE,
  STORAGE,
  ProgramGenerator,
  Writer,
  cString,
  commentText,
  convert,
  launchHasCheck,
  locText,
  programHeader,
  programSignature,
  programSymbol,
  type CheckStmt,
  type CppOptions,
  type PointContext,
} from './cpp.js';

/**
 * CUDA backend for the loop-nest IR. It keeps the C++ backend's library shell, program
 * statements, bounds checks and point-statement emission (it derives from its generator)
 * and replaces the loops: every HLoop becomes a kernel, queued in program order on the
 * handle's one stream.
 *
 *  - PARALLEL: one kernel per HLoop, one thread per (i, j, k) point (the IR guarantees the
 *    points of an HLoop are independent).
 *  - FORWARD/BACKWARD: one kernel per VLoop, one thread per (i, j) column that walks K in
 *    order and runs every HLoop at each level. That is only correct when no column reads
 *    what another column writes in the same VLoop; when an array written in the VLoop is
 *    read at a horizontal offset, each level needs a grid-wide barrier between HLoops and
 *    between levels, so the VLoop becomes one launch per level and HLoop instead
 *    (stream order is the barrier).
 *  - An axis that an array written by a kernel lacks (an IJ field written at every level)
 *    stays a loop inside each thread, in the interpreter's order.
 *
 * Thread mapping follows the preset's loop order, read like the CPU's: the last axis
 * varies fastest and runs along threadIdx.x, so it should be the contiguous one. Program
 * temporaries and transients are laid out the same way, from the handle's memory pool.
 *
 * What the CPU build reports from inside its loops (a read at a variable K offset outside
 * the array, a failed debug check) a kernel records in the handle's device error record
 * (native/orch_cuda_device.h) and goes on, so the device stays usable. Each place that can
 * record is a numbered *site*; the host reads the record back (after launches with debug
 * checks, and at `sync`) and turns each entry into the CPU build's message with the
 * generated `report_errors`, which knows every site's text.
 *
 * Outputs per program: the host `.cpp` (the C ABI of cpp.ts plus `_sync` and
 * `_set_stream`), the `.cu` with the kernels and their launchers, the launchers'
 * declarations `<symbol>_kernels.h` shared by both, and the public header.
 */

export interface CudaOptions extends CppOptions {
  /** Threads per block of PARALLEL kernels along x, y, z. */
  blockSize: [number, number, number];
  /** Threads per block of FORWARD/BACKWARD kernels along x, y. */
  columnBlockSize: [number, number];
  /** Synchronize after every launch so a kernel fault names its stencil (debugging). */
  syncLaunches: boolean;
  /** Name the generated .cu is written under; `#line` resets point at it. Default `<symbol>.cu`. */
  kernelFileName?: string;
}

export interface CudaOutput {
  /** The host `.cpp`. */
  source: string;
  /** The `.cu` with kernels and launchers. */
  kernels: string;
  /** `<symbol>_kernels.h`: launcher declarations, included by both. */
  launchers: string;
  header: string;
  symbol: string;
  signature: ProgramSignature;
}

export const DEFAULT_BLOCK: [number, number, number] = [128, 2, 1];
export const DEFAULT_COLUMN_BLOCK: [number, number] = [64, 2];

export function generateCuda(program: Program, opts: CudaOptions): CudaOutput {
  checkBlock('blockSize', opts.blockSize, 3);
  checkBlock('columnBlockSize', opts.columnBlockSize, 2);
  const symbol = programSymbol(program.name);
  const signature: ProgramSignature = { ...programSignature(program), target: 'cuda' };
  const gen = new CudaGenerator(program, { ...opts, openmp: false }, symbol);
  const source = gen.source(signature);
  return {
    source,
    kernels: gen.kernelSource(opts.kernelFileName ?? `${symbol}.cu`),
    launchers: gen.launcherHeader(),
    header: programHeader(program, symbol, signature, {
      doc: [
        ` *   int         ${symbol}_sync(void* handle);`,
        ' *       CUDA: run only queues kernels on the handle\'s stream and returns; sync waits for',
        ' *       them. Returns 0, or nonzero with a kernel fault in last_error.',
        ` *   int         ${symbol}_set_stream(void* handle, void* stream);`,
        ' *       CUDA: queue later runs on `stream` (a cudaStream_t, e.g. CuPy\'s current stream);',
        ' *       NULL goes back to a stream of the handle\'s own.',
        ' *   Field data pointers must be device memory (or managed, or mapped pinned memory).',
        ' *   Errors kernels record (a read at a variable K offset outside the array) are reported',
        ' *   by the next sync; debug checks are reported right after their launch.',
      ],
      decls: [`int ${symbol}_sync(void* handle);`, `int ${symbol}_set_stream(void* handle, void* stream);`],
    }),
    symbol,
    signature,
  };
}

function checkBlock(name: string, block: readonly number[], rank: number): void {
  const limits = [1024, 1024, 64];
  const ok =
    Array.isArray(block) &&
    block.length === rank &&
    block.every((b, d) => Number.isInteger(b) && b >= 1 && b <= limits[d]) &&
    block.reduce((a, b) => a * b, 1) <= 1024;
  if (!ok) {
    fail('E_OPTION', `codegen.${name} ${JSON.stringify(block)} is not a valid CUDA block`, {
      hint: `give ${rank} positive integers (x, y${rank === 3 ? ', z ≤ 64' : ''}) whose product is at most 1024, e.g. ${JSON.stringify(rank === 3 ? DEFAULT_BLOCK : DEFAULT_COLUMN_BLOCK)}`,
    });
  }
}

/** A kernel (and launcher) parameter, and the host expression passed for it. */
interface Param {
  type: string;
  name: string;
  arg: string;
}

const int64Param = (name: string, arg = name): Param => ({ type: 'int64_t', name, arg });

const GRID_LIMIT = { x: '2147483647u', y: '65535u', z: '65535u' } as const;
type Dim = 'x' | 'y' | 'z';


/** Arrays `body` reads at a variable K offset. */
function variableKArrays(body: Stmt[]): Set<string> {
  const out = new Set<string>();
  forEachExpr(body, (e) => {
    if (e.kind === 'field' && e.kOffset) out.add(e.name);
  });
  return out;
}

/** Whether a FORWARD/BACKWARD VLoop reads, at a horizontal offset, an array it writes. */
export function needsLevelBarrier(v: VLoop): boolean {
  const bodies = v.body.flatMap((h) => h.body);
  const written = writes(bodies);
  return reads(bodies).some((r) => written.has(r.name) && (r.offset[0] !== 0 || r.offset[1] !== 0));
}

class CudaGenerator extends ProgramGenerator {
  private readonly kernelWriter = new Writer();
  private readonly declarations: string[] = [];
  private kernelCount = 0;
  /** The launch being emitted, as messages (a C string) and comments name it. */
  private launchWhere = '""';
  private launchComment = '';
  private readonly cudaOpts: CudaOptions;
  /** The body of each site's `case` in `report_errors`, by site number. */
  private readonly sites: string[] = [];

  constructor(program: Program, opts: CudaOptions, symbol: string) {
    super(program, opts, symbol);
    this.cudaOpts = opts;
    const kw = this.kernelWriter;
    kw.line(`// Generated by orch from program ${commentText(program.name)}: kernels and their launchers. Do not edit.`);
    kw.line('#include "orch_runtime.h"');
    kw.line('#include "orch_cuda_device.h"');
    kw.line(`#include "${symbol}_kernels.h"`);
    kw.line('');
  }

  private get label(): string {
    return cString(`program '${this.program.name}'`);
  }

  /** Kernels over whole ranges: a tiled launch's tile-local arrays are ordinary transients here. */
  protected override tilesLaunches(): boolean {
    return false;
  }

  protected override stateType(): string {
    return 'orch::cuda::State';
  }

  protected override extraIncludes(): string[] {
    return ['#include "orch_cuda.h"', `#include "${this.symbol}_kernels.h"`];
  }

  protected override runPrelude(): void {
    this.w.line(`if (orch::cuda::prepare(st, ${this.label}, ${this.sites.length > 0})) return 1;`);
  }

  protected override beforeRunProgram(): void {
    this.w.line('int report_errors(orch::cuda::State* st, const orch::cuda::ErrorEntry& e);');
    this.w.line('');
  }

  /** `report_errors`: each site's entry in the device error record as the CPU build reports it. */
  protected override afterRunProgram(): void {
    const w = this.w;
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

  protected override extraExports(api: string): void {
    const w = this.w;
    const st = 'static_cast<orch::cuda::State*>(handle)';
    w.line('');
    w.line(`${api} int ${this.symbol}_sync(void* handle) { return handle ? orch::cuda::sync(${st}, ${this.label}, report_errors) : 1; }`);
    w.line('');
    w.open(`${api} int ${this.symbol}_set_stream(void* handle, void* stream) {`);
    w.line(`return handle ? orch::cuda::set_stream(${st}, ${this.label}, stream) : 1;`);
    w.close();
  }

  /** Temporaries are laid out like the thread mapping: the preset's last loop axis is contiguous. */
  protected override bufferType(a: ArrayDecl): string {
    const positions = [...this.order].filter((axis) => a.axes.includes(axis)).map((axis) => a.axes.indexOf(axis));
    return `orch::cuda::DeviceBuffer<${positions.join(', ')}>`;
  }

  protected override prologue(): void {
    super.prologue();
    this.program.params.forEach((param, n) => {
      if (param.kind !== 'field') return;
      this.w.line(`if (orch::cuda::check_device_arg(st, ${n}, ${cString(param.name)}, ${this.view(param.name)}.data)) return 1;`);
    });
  }

  /** Device arrays would need staging through the host or CUDA-aware MPI: not built yet. */
  protected override halo(s: HaloStmt): void {
    fail('E_HALO_CUDA', 'halo exchanges are not supported in CUDA builds yet', { loc: s.loc, hint: 'build this program with a CPU preset (cpu, cpu-native) to run it under MPI' });
  }

  protected override launch(s: LaunchStmt): void {
    const text = `program '${this.program.name}': stencil '${s.stencil}' at ${locText(s.loc)}`;
    this.launchWhere = cString(text);
    this.launchComment = commentText(text);
    super.launch(s);
  }

  // -------------------------------------------------------------------------------------
  // Errors found inside kernels: recorded on the device, reported by the host.

  // The CPU's host-side `vkerr` has no place here: kernels record into the handle's record.
  protected override beginLoops(): void {}
  protected override afterVLoop(): void {}

  /**
   * Debug checks are read back right after their launch, so an abort-mode failure ends the
   * run there and log-mode reports come out in program order, as on the CPU (a debug build
   * waits for each checked launch). Variable-K reads wait for `sync`, unless every launch
   * is synchronized anyway.
   */
  protected override endLaunch(s: LaunchStmt, ctx: PointContext): void {
    if (launchHasCheck(s) || (ctx.variableK && this.cudaOpts.syncLaunches)) {
      this.w.line(`if (orch::cuda::read_errors(st, ${this.launchWhere}, report_errors)) return 1;`);
    }
  }

  protected override variableKFailed(): string {
    return 'vk_failed';
  }

  protected override variableKRead(name: string, offset: Offset, kOffset: Expr, loc: SourceLoc | undefined, ctx: PointContext | undefined): string {
    const r = this.variableKParts(name, offset, kOffset, loc, ctx);
    const site = this.site(`return orch::vk_report(st, ${r.head}, ${r.tail}, e.n[0], e.n[1], e.i, e.j, e.k);`);
    return `orch::cuda::vk_read(${r.base}, ${r.stride}, ${r.idx}, ${r.lo}, ${r.hi}, errors, vk_failed, ${site}, i, j, k)`;
  }

  /** A debug check in a kernel: the array indices come from the origin parameters. */
  protected override check(s: CheckStmt, ctx: PointContext): void {
    const { value, test, format } = this.checkParts(s, ctx);
    const axes = axisIndices(this.array(s.target).axes);
    const abort = s.check.action === 'abort';
    const values = [...(s.check.test === 'nan' ? [] : ['e.value']), ...axes.map((_, pos) => `(long long)e.n[${pos}]`)];
    const site = this.site(
      `{ char msg[512]; std::snprintf(msg, sizeof msg, ${format}, ${values.join(', ')}); orch::debug_report(st, ${abort}, msg); return ${abort ? 1 : 0}; }`,
    );
    const idx = [0, 1, 2].map((pos) => (pos < axes.length ? `${this.originParam(s.target, pos)} + ${'ijk'[axes[pos]]}${axes[pos] === 2 && s.kOffset ? ` + ${s.kOffset}` : ''}` : '0'));
    this.mapped(s.loc, () => this.w.line(`if (${test}) orch::cuda::check_failed(errors, ${abort}, ${site}, ${value}, ${idx.join(', ')}, i, j, k);`));
  }

  // -------------------------------------------------------------------------------------
  // Host side of a VLoop: bounds, then launcher calls in IR order.

  protected override vloop(v: VLoop, ctx: PointContext): void {
    const w = this.w;
    const int64 = (e: Expr): string => convert(this.expr(e, undefined), e.dtype, 'int64');
    w.open('{');
    w.line(`const int64_t klo = ${int64(v.k.lo)}, khi = ${int64(v.k.hi)};`);
    v.body.forEach((h, n) => {
      w.line(`const int64_t ilo${n} = ${int64(h.i.lo)}, ihi${n} = ${int64(h.i.hi)}, jlo${n} = ${int64(h.j.lo)}, jhi${n} = ${int64(h.j.hi)};`);
    });
    const nonEmpty = (n: number): string => `ihi${n} > ilo${n} && jhi${n} > jlo${n}`;
    if (v.order === 'PARALLEL') {
      v.body.forEach((h, n) => {
        const call = this.sweepKernel('points', v, [n], ctx);
        w.open(`if (${nonEmpty(n)} && khi > klo) {`);
        this.callLauncher(call);
        w.close();
      });
    } else if (!needsLevelBarrier(v)) {
      const all = v.body.map((_, n) => n);
      const call = this.sweepKernel('column', v, all, ctx);
      w.open(`if (khi > klo && (${all.map((n) => `(${nonEmpty(n)})`).join(' || ')})) {`);
      this.callLauncher(call);
      w.close();
    } else {
      const calls = v.body.map((_, n) => this.sweepKernel('level', v, [n], ctx));
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
    const sync = this.cudaOpts.syncLaunches ? 'true' : 'false';
    this.w.line(`if (orch::cuda::launched(st, ${this.launchWhere}, ${call}, ${sync})) return 1;`);
  }

  // -------------------------------------------------------------------------------------
  // Kernels

  /** Pointers, strides, scalars and views the bodies use, in a stable order. */
  private kernelParams(loops: readonly HLoop[], ctx: PointContext): Param[] {
    const bodies = loops.flatMap((h) => h.body);
    const arrays = writes(bodies);
    const written = writes(bodies);
    const scalars = new Set<string>();
    const shapes = new Set<string>();
    forEachExpr(bodies, (e) => {
      if (e.kind === 'field') arrays.add(e.name);
      else if (e.kind === 'scalar') scalars.add(e.name);
      else if (e.kind === 'shape') shapes.add(e.name);
    });
    for (const name of arrays) {
      if (!ctx.hoisted.has(name)) throw new Error(`array '${name}' is accessed outside a launch that addresses it`);
    }
    const params: Param[] = [];
    for (const [name, a] of ctx.hoisted) {
      if (!arrays.has(name)) continue;
      const constness = written.has(name) ? '' : 'const ';
      params.push({ type: `${constness}${STORAGE[a.dtype]}* __restrict__`, name: this.ptr(name), arg: this.ptr(name) });
      for (let pos = 0; pos < a.axes.length; pos++) params.push(int64Param(this.stride(name, pos)));
    }
    for (const s of this.program.scalars) {
      if (scalars.has(s.name)) params.push({ type: CTYPE[s.dtype], name: this.scalar(s.name), arg: this.scalar(s.name) });
    }
    for (const name of shapes) params.push({ type: 'orch_array', name: this.view(name), arg: this.view(name) });
    // Variable-K reads check against the arrays' K limits; checks report array indices.
    const variableK = variableKArrays(bodies);
    for (const name of variableK) params.push(int64Param(this.kLimit(name, 'lo')), int64Param(this.kLimit(name, 'hi')));
    const checked = checkTargets(bodies);
    for (const name of checked) {
      const origin = ctx.origins[name] ?? [];
      this.array(name).axes.split('').forEach((_, pos) => {
        const o = origin[pos];
        params.push(int64Param(this.originParam(name, pos), o ? convert(this.expr(o, undefined), o.dtype, 'int64') : '0'));
      });
    }
    if (variableK.size || checked.size) params.push({ type: 'orch::cuda::ErrorRecord* __restrict__', name: 'errors', arg: 'st->errors' });
    // Regions are relative to the launch domain.
    params.push(int64Param('dom0'), int64Param('dom1'));
    return params;
  }

  /**
   * One kernel over the HLoops `indices` of `v`:
   *
   *  - `points` (a PARALLEL HLoop): threads over I, J and K;
   *  - `column` (a FORWARD/BACKWARD VLoop): threads over I and J, each walking K in order
   *    and running every HLoop at each level;
   *  - `level` (one HLoop at one level `k`, launched per level by the host).
   *
   * An axis that some array written by the kernel lacks (an IJ field written over K, a K
   * field written over IJ) cannot be spread over threads: every point along it writes the
   * same element, and the IR's order decides which write wins (and what later points
   * read). Such axes are looped inside the thread in the interpreter's order (K, then I,
   * then J) instead.
   */
  private sweepKernel(kind: 'points' | 'column' | 'level', v: VLoop, indices: number[], ctx: PointContext): string {
    const loops = indices.map((n) => v.body[n]);
    const candidates = kind === 'points' ? 'IJK' : 'IJ';
    const missing = new Set<string>();
    for (const name of writes(loops.flatMap((h) => h.body))) {
      for (const axis of 'IJK') if (!this.array(name).axes.includes(axis)) missing.add(axis);
    }
    const threadAxes = [...this.order].filter((a) => candidates.includes(a) && !missing.has(a));
    const serialAxes = [...'KIJ'].filter((a) => candidates.includes(a) && missing.has(a));
    const dims = this.dims(threadAxes.join(''));

    const bounds: Param[] = [];
    indices.forEach((n, m) => {
      for (const b of ['ilo', 'ihi', 'jlo', 'jhi']) bounds.push(int64Param(`${b}${m}`, `${b}${n}`));
    });
    bounds.push(...(kind === 'level' ? [int64Param('k')] : [int64Param('klo'), int64Param('khi')]));

    // Threads cover the hull of the loops' ranges; with several loops each keeps its own.
    const hull = (axis: string, end: 'lo' | 'hi'): string => {
      if (axis === 'K') return `k${end}`;
      const names = loops.map((_, m) => `${axis.toLowerCase()}${end}${m}`);
      return names.reduce((acc, x) => `orch::${end === 'lo' ? 'min' : 'max'}<int64_t>(${acc}, ${x})`);
    };
    const extents: Partial<Record<Dim, string>> = {};
    for (const axis of threadAxes) extents[dims[axis]] = `${hull(axis, 'hi')} - ${hull(axis, 'lo')}`;

    const what =
      kind === 'points'
        ? 'PARALLEL loop nest'
        : kind === 'column'
          ? `${v.order} column sweep, ${loops.length} loop nest${loops.length === 1 ? '' : 's'} per level`
          : `one ${v.order} level of a loop nest that reads other columns of what its K sweep writes`;
    const serialNote = serialAxes.length ? ` (${serialAxes.join('')} in each thread: written arrays lack ${serialAxes.length === 1 ? 'that axis' : 'those axes'})` : '';
    const block = kind === 'points' ? this.cudaOpts.blockSize : this.cudaOpts.columnBlockSize;
    const variableK = variableKArrays(loops.flatMap((h) => h.body)).size > 0;
    return this.emitKernel(`${what}${serialNote}: ${this.launchComment}`, this.kernelParams(loops, ctx), bounds, block, extents, () => {
      const w = this.w;
      // set by this thread's failed variable-K read: its `while` loops must still end
      if (variableK) w.line('bool vk_failed = false;');
      const range = (axis: string, m: number): [string, string] =>
        axis === 'K' ? ['klo', 'khi'] : [`${axis.toLowerCase()}lo${m}`, `${axis.toLowerCase()}hi${m}`];
      const serialLoops = (m: number): number => {
        for (const axis of serialAxes) {
          const v = axis.toLowerCase();
          const [lo, hi] = range(axis, m);
          w.open(`for (int64_t ${v} = ${lo}; ${v} < ${hi}; ++${v}) {`);
        }
        return serialAxes.length;
      };
      for (const axis of threadAxes) {
        const lo = loops.length === 1 || axis === 'K' ? range(axis, 0)[0] : `(${hull(axis, 'lo')})`;
        const hi = loops.length === 1 || axis === 'K' ? range(axis, 0)[1] : `(${hull(axis, 'hi')})`;
        w.open(this.strideLoop(axis, dims[axis], lo, hi));
      }
      const guarded = loops.length > 1 && threadAxes.length > 0;
      if (guarded) {
        loops.forEach((_, m) => {
          const conds = threadAxes.map((axis) => {
            const [lo, hi] = range(axis, m);
            return `${axis.toLowerCase()} >= ${lo} && ${axis.toLowerCase()} < ${hi}`;
          });
          w.line(`const bool in${m} = ${conds.join(' && ')};`);
        });
      }
      if (kind === 'column') {
        w.open(v.order === 'FORWARD' ? 'for (int64_t k = klo; k < khi; ++k) {' : 'for (int64_t k = khi - 1; k >= klo; --k) {');
      }
      loops.forEach((h, m) => {
        if (guarded) w.open(`if (in${m}) {`);
        const depth = serialLoops(m);
        this.pointLocals(h, ctx);
        this.stmts(h.body, ctx);
        for (let d = 0; d < depth; d++) w.close();
        if (guarded) w.close();
      });
      if (kind === 'column') w.close();
      for (let d = 0; d < threadAxes.length; d++) w.close();
    });
  }

  /** The dimension each axis letter runs along: the last one x, the one before y, then z. */
  private dims(letters: string): Record<string, Dim> {
    const out: Record<string, Dim> = {};
    [...letters].reverse().forEach((axis, n) => (out[axis] = (['x', 'y', 'z'] as const)[n]));
    return out;
  }

  /** A grid-stride loop of `axis` along `dim`, from `lo` to `hi`. */
  private strideLoop(axis: string, dim: Dim, lo: string, hi: string): string {
    const v = axis.toLowerCase();
    return `for (int64_t ${v} = ${lo} + (int64_t)blockIdx.${dim} * blockDim.${dim} + threadIdx.${dim}; ${v} < ${hi}; ${v} += (int64_t)gridDim.${dim} * blockDim.${dim}) {`;
  }

  /**
   * Writes one kernel and its launcher; returns the host call. `extents` are the points
   * per grid dimension in terms of the launcher's parameters; a dimension without one
   * gets one thread and one block, so no two threads ever run the same points. `body`
   * writes the kernel's loops and statements.
   */
  private emitKernel(comment: string, params: Param[], extra: Param[], block: readonly number[], extents: Partial<Record<Dim, string>>, body: () => void): string {
    const n = this.kernelCount++;
    const launcher = `${this.symbol}_k${n}`;
    const kernel = `${launcher}_kernel`;
    const all = [...params, ...extra];
    const decls = all.map((p) => `${p.type} ${p.name}`).join(', ');
    const threads = (['x', 'y', 'z'] as const).map((d, i) => (extents[d] ? (block[i] ?? 1) : 1));
    const kw = this.kernelWriter;
    kw.line(`// ${comment}`);
    kw.open(`__global__ void __launch_bounds__(${threads.reduce((a, b) => a * b, 1)}) ${kernel}(${decls}) {`);
    this.into(kw, body);
    kw.close();
    kw.line('');
    kw.open(`int ${launcher}(cudaStream_t stream, ${decls}) {`);
    const n3 = (['x', 'y', 'z'] as const).map((d) => extents[d] ?? '1');
    kw.line(`const int64_t nx = ${n3[0]}, ny = ${n3[1]}, nz = ${n3[2]};`);
    kw.line(`const dim3 block = orch::cuda::fit_block(dim3(${threads.join(', ')}), nx, ny, nz);`);
    const grid = (['x', 'y', 'z'] as const).map((d) => (extents[d] ? `orch::cuda::blocks(n${d}, block.${d}, ${GRID_LIMIT[d]})` : '1'));
    kw.line(`const dim3 grid(${grid.join(', ')});`);
    kw.line(`${kernel}<<<grid, block, 0, stream>>>(${all.map((p) => p.name).join(', ')});`);
    kw.line('return static_cast<int>(cudaGetLastError());');
    kw.close();
    kw.line('');
    this.declarations.push(`int ${launcher}(cudaStream_t stream, ${decls});`);
    return `${launcher}(st->stream, ${all.map((p) => p.arg).join(', ')})`;
  }

  private into(writer: Writer, emit: () => void): void {
    const host = this.w;
    this.w = writer;
    try {
      emit();
    } finally {
      this.w = host;
    }
  }

  kernelSource(fileName: string): string {
    return this.kernelWriter.text(fileName);
  }

  launcherHeader(): string {
    const guard = `${this.symbol.toUpperCase()}_KERNELS_H`;
    return [
      `// Generated by orch from program ${commentText(this.program.name)}: launchers of its kernels,`,
      `// defined in ${this.symbol}.cu and called by ${this.symbol}.cpp. Each returns a cudaError_t.`,
      `#ifndef ${guard}`,
      `#define ${guard}`,
      '',
      '#include <cuda_runtime_api.h>',
      '',
      '#include "orch_runtime.h"',
      '',
      ...this.declarations,
      '',
      '#endif',
      '',
    ].join('\n');
  }
}
