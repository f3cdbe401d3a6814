import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import koffi from 'koffi';
import { Compiler, type EntryResult } from '../core/Compiler.js';
import { NATIVE_DIR } from '../core/cache/hashing.js';
import { resolveCudaArch } from '../core/config/cudaArch.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic, OrchError } from '../core/diagnostics.js';
import { hostCallbacks } from '../core/runtime/hostCallbacks.js';
import { CudaRuntime } from '../core/runtime/CudaRuntime.js';
import { layoutStrides, stageOnDevice, type DeviceArgs } from '../core/runtime/deviceArgs.js';
import { bytesPerElement } from '../core/runtime/ndarray.js';
import { NativeLibrary, type ArgValue, type DeviceArray } from '../core/runtime/NativeLibrary.js';
import { compileCudaLibrary } from '../core/toolchain/nvcc.js';
import { gt4pyMismatch } from '../test/conformanceKit.js';
import { callArgs, interpret, interpreterMismatch, runOnDevice } from '../test/deviceRuns.js';
import { eagerLimited, gpuJobs, testConcurrency, type GpuJob } from '../test/gpuJobs.js';
import { scaledCall, traffic } from './scaledCalls.js';

/**
 * GPU benchmark: not a test, it needs an NVIDIA GPU (and exits with status 2 without one).
 *
 *   npm run bench:gpu -- [--preset cuda-h100] [--shapes 24x24x72,192x192x80] [--reps 50]
 *                        [--only s02_del2_smoother,p01_diffusion_substeps] [--json]
 *
 * 1. Correctness: every conformance case and fixture entry, built with the preset, runs
 *    on the device and is compared with the interpreter (and GT4Py's outputs).
 * 2. Bandwidth: each entry runs on its inputs tiled to every requested shape; effective
 *    bandwidth (bytes of the argument fields it reads plus those it writes, each once,
 *    per call, over the time per call) is divided by a device STREAM triad
 *    (native/orch_triad.cu) measured in the same run.
 * 3. Orchestrated vs stencil-by-stencil: fixtures/diffusion's program as one library call,
 *    against its stencils called one library call each, in the program's order.
 *
 * Fields live on the device in the layout the preset's loop order reads coalesced; calls
 * are queued asynchronously and timed with one synchronization per batch.
 */

interface Options {
  preset: string;
  shapes: [number, number, number][];
  reps: number;
  only?: Set<string>;
  json: boolean;
}

function parseOptions(argv: string[]): Options {
  const opts: Options = { preset: 'cuda-h100', shapes: [[24, 24, 72], [192, 192, 80]], reps: 50, json: false };
  for (let n = 0; n < argv.length; n++) {
    const [flag, inline] = argv[n].split('=', 2);
    const value = () => inline ?? argv[++n];
    if (flag === '--preset') opts.preset = value();
    else if (flag === '--reps') opts.reps = Math.max(1, Number(value()));
    else if (flag === '--only') opts.only = new Set(value().split(','));
    else if (flag === '--json') opts.json = true;
    else if (flag === '--shapes') {
      opts.shapes = value()
        .split(',')
        .map((s) => s.split('x').map(Number) as [number, number, number]);
      if (opts.shapes.some((s) => s.length !== 3 || s.some((d) => !Number.isInteger(d) || d < 1))) throw new Error('--shapes expects NXxNYxNZ[,NXxNYxNZ...]');
    } else throw new Error(`unknown option ${flag}; see the comment at the top of bench/gpuBench.ts`);
  }
  return opts;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '../..');
const opts = parseOptions(process.argv.slice(2));
const say = (text: string) => (opts.json ? process.stderr : process.stdout).write(`${text}\n`);

// ---- the device ------------------------------------------------------------------------

let runtime: CudaRuntime;
try {
  runtime = CudaRuntime.open();
} catch (e) {
  process.stderr.write(`gpuBench needs the CUDA runtime and a GPU: ${(e as Error).message}\n`);
  process.exit(2);
}
const devices = runtime.devices();
if (devices.count === 0) {
  process.stderr.write(`gpuBench needs a CUDA GPU; this machine has none (${devices.reason}). The tests cover what runs without one.\n`);
  process.exit(2);
}

const work = process.env.GT_CACHE_ROOT ?? mkdtempSync(path.join(os.tmpdir(), 'orch-gpu-bench-'));
const config = await resolveConfig({ configFile: null, cwd: work, preset: opts.preset });
config.cacheRoot = work;
if (config.backend.storage !== 'device') throw new Error(`preset ${opts.preset} is not a GPU preset (its backend is ${config.backend.name})`);
const compiler = new Compiler(config, { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined });
const loopOrder = config.codegen.loopOrder;
const arch = (await resolveCudaArch(config.compiler.cudaArch)).arch;
say(`preset ${opts.preset} (${arch}), CUDA runtime ${runtime.version}, ${devices.count} device(s); cache ${work}`);

// ---- the triad -------------------------------------------------------------------------

async function triadBandwidth(): Promise<number> {
  const dir = path.join(work, 'triad');
  mkdirSync(dir, { recursive: true });
  const lib = path.join(dir, 'liborch_triad.so');
  await compileCudaLibrary({ nvcc: config.compiler.cxx, flags: ['-O3'], arch, sources: [path.join(NATIVE_DIR, 'orch_triad.cu')], output: lib, cwd: dir, includeDirs: [] });
  const handle = koffi.load(lib);
  const triad = handle.func('int orch_triad(int64_t n, int reps, _Out_ double *bytes_per_s, _Out_ char *error, int error_len)');
  const out = [0];
  const error = Buffer.alloc(512);
  // 3 x 512 MiB: far beyond any L2, so the triad measures DRAM.
  if (triad(2 ** 26, 20, out, error, error.length) !== 0) throw new Error(`triad failed: ${error.toString('utf8').replace(/\0.*$/s, '')}`);
  return out[0];
}

const triad = await triadBandwidth();
say(`device triad: ${(triad / 1e9).toFixed(1)} GB/s\n`);

// ---- building ----------------------------------------------------------------------------

async function build(job: Pick<GpuJob, 'request'> & { name: string }): Promise<EntryResult> {
  const r = await compiler.build({ ...job.request, mode: 'build' });
  if (r.errors.length) throw new OrchError(r.errors[0]);
  // the IR (for the interpreter and the traffic count) comes with a fresh build only
  const entry = r.entries[0];
  if (!entry.program) {
    const ir = await new Compiler(config, { verifyIR: false, printIrAfter: [], timePasses: false, stopAfter: 'debugInsertion', print: () => undefined }).build({ ...job.request, mode: 'python' });
    entry.program = ir.entries[0].program;
    entry.iface = ir.entries[0].iface;
  }
  return entry;
}

// ---- 1. correctness ---------------------------------------------------------------------

const jobs = (await gpuJobs(config)).filter((j) => !opts.only || opts.only.has(j.name) || opts.only.has(j.case?.name ?? ''));
const built = new Map<string, EntryResult>();
const rows: { name: string; result: string }[] = [];
say('1. every case and fixture on the device vs the interpreter (and GT4Py)');
// nvcc is the slow part: build concurrently (ORCH_TEST_JOBS, else up to 4 cores), run one at a time.
const pending = eagerLimited(jobs, testConcurrency(), async (job) => {
  try {
    return { entry: await build(job) };
  } catch (error) {
    return { error };
  }
});
for (const [n, job] of jobs.entries()) {
  let result: string;
  try {
    const b = await pending[n];
    if (!b.entry) throw b.error;
    const entry = b.entry;
    built.set(job.name, entry);
    const call = job.callFor(entry);
    const lib = NativeLibrary.open(entry.library!, entry.symbol!);
    try {
      const got = runOnDevice(lib, runtime, call, loopOrder);
      const problems = [interpreterMismatch(interpret(call), got), job.case ? gt4pyMismatch(job.case, got) : null].filter(Boolean);
      result = problems.length ? `MISMATCH ${problems.join('; ')}` : 'match';
    } finally {
      lib.close();
    }
  } catch (e) {
    result = e instanceof OrchError ? `error ${formatDiagnostic(e.diagnostic).split('\n')[0]}` : `error ${(e as Error).message}`;
  }
  rows.push({ name: job.name, result });
  say(`  ${result === 'match' ? 'ok  ' : 'FAIL'} ${job.name}${result === 'match' ? '' : `: ${result}`}`);
}
const matched = rows.filter((r) => r.result === 'match').length;
say(`  ${matched}/${rows.length} match\n`);

// ---- 2. bandwidth ---------------------------------------------------------------------------

/** Seconds per call of `lib` with its bound arguments: calls queued back to back, one sync. */
function timeCalls(lib: NativeLibrary, reps: number): number {
  lib.run(undefined, { async: true });
  lib.sync();
  let best = Infinity;
  for (let batch = 0; batch < 3; batch++) {
    const t = performance.now();
    for (let r = 0; r < reps; r++) lib.run(undefined, { async: true });
    lib.sync();
    best = Math.min(best, (performance.now() - t) / 1000 / reps);
  }
  return best;
}

interface BandwidthRow {
  name: string;
  shape: string;
  us: number;
  gbs: number;
  ofTriad: number;
}
const bandwidth: BandwidthRow[] = [];
say('2. effective bandwidth as a fraction of the device triad');
say(`  ${'entry'.padEnd(48)} ${'shape'.padEnd(12)} ${'us/call'.padStart(10)} ${'GB/s'.padStart(8)} ${'of triad'.padStart(9)}`);
for (const job of jobs) {
  const entry = built.get(job.name);
  if (!entry?.program) continue;
  const { read, written } = traffic(entry.program);
  const lib = NativeLibrary.open(entry.library!, entry.symbol!);
  try {
    // programs with host callbacks (p04's cfl_substeps) call them on every run
    if (entry.iface?.callbacks?.length) lib.setCallbacks(hostCallbacks(entry.iface));
    for (const shape of opts.shapes) {
      const call = scaledCall(job.callFor(entry), shape);
      let staged: DeviceArgs | undefined;
      try {
        const { args } = callArgs(call);
        staged = stageOnDevice(runtime, lib.signature.params, args, loopOrder);
        lib.bind(staged.args);
        const seconds = timeCalls(lib, opts.reps);
        let bytes = 0;
        for (const p of lib.signature.params) {
          if (p.kind !== 'field') continue;
          const a = staged.args[p.name] as DeviceArray;
          const size = a.shape.reduce((x, y) => x * y, 1) * bytesPerElement(a.dtype);
          bytes += (read.has(p.name) ? size : 0) + (written.has(p.name) ? size : 0);
        }
        const row = { name: job.name, shape: shape.join('x'), us: seconds * 1e6, gbs: bytes / seconds / 1e9, ofTriad: bytes / seconds / triad };
        bandwidth.push(row);
        say(`  ${row.name.padEnd(48)} ${row.shape.padEnd(12)} ${row.us.toFixed(1).padStart(10)} ${row.gbs.toFixed(1).padStart(8)} ${row.ofTriad.toFixed(2).padStart(9)}`);
      } catch (e) {
        say(`  ${job.name.padEnd(48)} ${shape.join('x').padEnd(12)} error: ${(e as Error).message.split('\n')[0]}`);
      } finally {
        staged?.free();
      }
    }
  } finally {
    lib.close();
  }
}

// ---- 3. orchestrated vs stencil-by-stencil -----------------------------------------------

const DIFFUSION = path.join(REPO, 'fixtures/diffusion/diffusion.py');
/** cudaStreamLegacy: the legacy default stream, as the CUDA runtime spells it. */
const CUDA_STREAM_LEGACY = 1n;
const N_SUB = 4;
const comparison: { shape: string; orchestratedUs: number; stencilsUs: number; speedup: number }[] = [];
say('\n3. fixtures/diffusion: one orchestrated call vs its stencils called one by one');
try {
  const program = await build({ name: 'diffuse', request: { modules: [DIFFUSION], entry: 'diffuse', externals: {}, defines: { n_sub: N_SUB } } });
  const stencils = {
    lap: await build({ name: 'laplacian_step', request: { modules: [DIFFUSION], entry: 'laplacian_step', externals: {}, defines: {} } }),
    smooth: await build({ name: 'vertical_smooth', request: { modules: [DIFFUSION], entry: 'vertical_smooth', externals: {}, defines: {} } }),
    blend: await build({ name: 'blend', request: { modules: [DIFFUSION], entry: 'blend', externals: {}, defines: {} } }),
  };
  const libs = Object.fromEntries(Object.entries(stencils).map(([k, e]) => [k, NativeLibrary.open(e.library!, e.symbol!)])) as Record<keyof typeof stencils, NativeLibrary>;
  // One stream for the three libraries (cudaStreamLegacy): on a stream of each handle's own,
  // a stencil could start before the one that writes its input had finished.
  for (const l of Object.values(libs)) l.setStream(CUDA_STREAM_LEGACY);
  const whole = NativeLibrary.open(program.library!, program.symbol!);
  const [nu, dt] = [0.02, 30];
  for (const shape of opts.shapes) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 8;
    const alloc = (): DeviceArray => {
      const devicePtr = runtime.malloc(bytes);
      runtime.memset(devicePtr, 0, bytes);
      return { devicePtr, dtype: 'float64', shape: [...shape], strides: layoutStrides(shape, 'IJK', loopOrder) };
    };
    const q = alloc();
    const qOut = alloc();
    const tmp = alloc();
    try {
      whole.bind({ q, q_out: qOut, nu, dt });
      const orchestrated = timeCalls(whole, opts.reps);
      // The program's body, one stencil library call at a time, arguments passed per call.
      const stencilCall = (lib: NativeLibrary, entry: EntryResult, fields: Record<string, DeviceArray>, scalars: Record<string, number>, origin: number[], domain: number[]) => {
        const s = entry.iface!.stencil!;
        const args: Record<string, ArgValue> = { ...fields, ...scalars };
        s.domainParams.forEach((p, a) => (args[p] = domain[a]));
        for (const f of s.fields) s.originParams[f.name].forEach((p, pos) => (args[p] = origin['IJK'.indexOf(f.axes[pos])]));
        lib.run(args, { async: true });
      };
      const [nx, ny, nz] = shape;
      const sweep = () => {
        const nuSub = (nu * dt) / N_SUB;
        for (let step = 0; step < N_SUB; step++) {
          stencilCall(libs.lap, stencils.lap, { q_in: q, q_out: tmp }, { nu: nuSub }, [1, 1, 0], [nx - 2, ny - 2, nz]);
          stencilCall(libs.lap, stencils.lap, { q_in: tmp, q_out: q }, { nu: nuSub }, [1, 1, 0], [nx - 2, ny - 2, nz]);
        }
        stencilCall(libs.smooth, stencils.smooth, { q_in: q, q_out: tmp }, { w: 0.25 }, [0, 0, 0], [nx, ny, nz]);
        stencilCall(libs.blend, stencils.blend, { src: tmp, dst: qOut }, { weight: 0.75 }, [0, 0, 0], [nx, ny, nz]);
      };
      sweep();
      for (const l of Object.values(libs)) l.sync();
      let best = Infinity;
      for (let batch = 0; batch < 3; batch++) {
        const t = performance.now();
        for (let r = 0; r < opts.reps; r++) sweep();
        for (const l of Object.values(libs)) l.sync();
        best = Math.min(best, (performance.now() - t) / 1000 / opts.reps);
      }
      const row = { shape: shape.join('x'), orchestratedUs: orchestrated * 1e6, stencilsUs: best * 1e6, speedup: best / orchestrated };
      comparison.push(row);
      say(`  ${row.shape.padEnd(12)} orchestrated ${row.orchestratedUs.toFixed(1)} us, stencil by stencil ${row.stencilsUs.toFixed(1)} us: ${row.speedup.toFixed(2)}x`);
    } finally {
      for (const a of [q, qOut, tmp]) runtime.free(a.devicePtr);
    }
  }
  whole.close();
  for (const l of Object.values(libs)) l.close();
} catch (e) {
  say(`  error: ${e instanceof OrchError ? formatDiagnostic(e.diagnostic) : (e as Error).message}`);
}

if (opts.json) process.stdout.write(`${JSON.stringify({ preset: opts.preset, arch, triadGBs: triad / 1e9, correctness: rows, bandwidth, diffusion: comparison }, null, 1)}\n`);
process.exit(matched === rows.length ? 0 : 1);
