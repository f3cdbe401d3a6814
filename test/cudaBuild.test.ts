import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler, type EntryResult } from '../core/Compiler.js';
import type { BuildInfo } from '../core/cache/BuildCache.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic, OrchError, type Diagnostic } from '../core/diagnostics.js';
import type { MemoryReport } from '../core/EntryBuild.js';
import { CudaRuntime } from '../core/runtime/CudaRuntime.js';
import { NativeLibrary, type ArgValue } from '../core/runtime/NativeLibrary.js';
import { gt4pyMismatch } from './conformanceKit.js';
import { interpret, interpreterMismatch, runOnDevice } from './deviceRuns.js';
import { CUDA_GAPS, eagerLimited, entryIR, gpuJobs, testConcurrency } from './gpuJobs.js';

/**
 * Every conformance case and fixture entry builds with the cuda-h100 preset through the
 * whole pipeline: nvcc compiles the kernels' .cu and the host .cpp into one library that
 * links the CUDA runtime in (no cuda* symbol left undefined), exports exactly the C ABI
 * (with _sync and _set_stream), loads, and reports device storage.
 *
 * Without a GPU (CI), running a library must fail cleanly, through last_error, with the
 * CUDA runtime's own message and the program's name. With a GPU, every entry runs on the
 * device and must match the interpreter (and GT4Py's outputs for conformance cases).
 * Nothing is skipped: without nvcc every build test fails, saying so.
 */

const work = mkdtempSync(path.join(os.tmpdir(), 'orch-cuda-build-'));
const config = await resolveConfig({ configFile: null, cwd: work, preset: 'cuda-h100' });
config.cacheRoot = work;
const compiler = new Compiler({ ...config, verifyIR: true }, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });

/**
 * The conformance and language cases build with the preset's flags but the host pass at -O0:
 * nvcc's -O sets the host compiler's level only (the kernels' cubin is byte-identical at -O0
 * and -O3), and the host code is the launch shell these cases do not time. That is about an
 * eighth of each nvcc build (~0.26 s CPU). The fixture entries, the bench's real programs,
 * build with the preset exactly as users get it.
 */
const HOST_O3 = '-O3';
const caseConfig = { ...config, compiler: { ...config.compiler, flags: config.compiler.flags.map((f) => (f === HOST_O3 ? '-O0' : f)) } };
const caseCompiler = new Compiler({ ...caseConfig, verifyIR: true }, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });

const nvcc = await execa(config.compiler.cxx, ['--version'], { reject: false, stdin: 'ignore', encoding: 'utf8' });
const nvccProblem = nvcc.failed
  ? `'${config.compiler.cxx}' could not be run (${nvcc.shortMessage}): the CUDA build tests need the CUDA toolkit's nvcc on PATH; they do not skip`
  : undefined;

/** A GPU to run on, if this machine has one (and the reason when it has none). */
function findDevice(): { runtime?: CudaRuntime; reason: string } {
  try {
    const runtime = CudaRuntime.open();
    const { count, reason } = runtime.devices();
    if (count > 0) return { runtime, reason: `${count} device(s)` };
    runtime.close();
    return { reason: reason ?? 'no device' };
  } catch (e) {
    return { reason: (e as Error).message };
  }
}
const device = findDevice();

const ABI = ['init', 'run', 'run_bound', 'last_error', 'exit', 'signature', 'set_callback', 'sync', 'set_stream'];

interface Built {
  ir?: EntryResult;
  irErrors: Diagnostic[];
  result?: EntryResult;
  errors: Diagnostic[];
  seconds: number;
}

const jobs = await gpuJobs(config);
const t0 = performance.now();
let buildsDone = 0;
const builds = eagerLimited(jobs, testConcurrency(), async (job): Promise<Built> => {
  if (nvccProblem) return { irErrors: [], errors: [], seconds: 0 };
  const t = performance.now();
  const r = await (job.case ? caseCompiler : compiler).build({ ...job.request, mode: 'build' });
  const seconds = (performance.now() - t) / 1000;
  buildsDone = performance.now();
  const result = r.entries[0];
  // A failed build: is it the frontend's (the same for every target) or the CUDA backend's?
  if (r.errors.length) {
    const ir = await entryIR(config, job.request);
    return { ir: ir.entry, irErrors: ir.errors, result, errors: r.errors, seconds };
  }
  return { ir: result, irErrors: [], result, errors: [], seconds };
});

function symbols(output: string): string[] {
  return output
    .split('\n')
    .map((l) => l.trim().split(/\s+/).pop() ?? '')
    .filter(Boolean);
}

const cudaBuild = suite('cuda-h100 builds');

cudaBuild('nvcc is available', () => {
  assert.is(nvccProblem, undefined, nvccProblem);
  assert.match(String(nvcc.stdout), /release \d+\.\d+/);
});

cudaBuild('the cases build with the preset host pass at -O0, the fixtures with the preset as is', () => {
  assert.ok(config.compiler.flags.includes(HOST_O3), `the preset's flags (${config.compiler.flags.join(' ')}) have ${HOST_O3}: the cases' -O0 replaces it`);
  assert.equal(caseConfig.compiler.flags.filter((f) => f !== '-O0'), config.compiler.flags.filter((f) => f !== HOST_O3), 'only the host level differs');
  assert.ok(jobs.some((j) => j.case) && jobs.some((j) => !j.case), 'both kinds of job are built');
});

jobs.forEach((job, n) => {
  cudaBuild(`${job.name}: nvcc builds and links it`, async () => {
    assert.is(nvccProblem, undefined, nvccProblem);
    const built = await builds[n];
    if (built.irErrors.length) {
      // Rejected by the frontend for every target (conformance.test.ts tracks these): the
      // CUDA build must fail the same way, with nothing of its own.
      assert.ok(job.case, `fixture ${job.name} does not build:\n${built.irErrors.map((d) => formatDiagnostic(d)).join('\n')}`);
      assert.equal(
        built.errors.map((d) => [d.code, d.message]),
        built.irErrors.map((d) => [d.code, d.message]),
      );
      return;
    }
    const gap = CUDA_GAPS[job.name];
    if (gap) {
      assert.ok(built.errors.length > 0, `${job.name} is a CUDA gap but now builds: remove it from CUDA_GAPS`);
      assert.is(built.errors[0].code, gap, formatDiagnostic(built.errors[0]));
      assert.ok(built.errors[0].loc && built.errors[0].frame, 'the gap is reported at its source line');
      return;
    }
    assert.is(built.errors.length, 0, built.errors.map((d) => formatDiagnostic(d, { verbose: true })).join('\n'));
    const e = built.result!;
    assert.ok(e.status === 'built' && e.dir && e.library && e.symbol, `status ${e.status}`);
    const sym = e.symbol!;
    for (const f of [`${sym}.cpp`, `${sym}.cu`, `${sym}_kernels.h`, `${sym}.h`, `lib${sym}.so`]) assert.ok(existsSync(path.join(e.dir!, f)), `${f} is in the cache entry`);

    const kernels = readFileSync(path.join(e.dir!, `${sym}.cu`), 'utf8');
    const launches = JSON.stringify(built.ir!.program!.body).includes('"kind":"launch"');
    if (launches) assert.match(kernels, /__global__ void/, 'the program launches kernels');

    const info = JSON.parse(readFileSync(path.join(e.dir!, 'build-info.json'), 'utf8')) as BuildInfo;
    assert.is(info.inputs.compiler.cudaArch, 'sm_90', 'the resolved architecture is part of the key');
    assert.ok(info.command.includes('-arch=sm_90') && info.command.includes('--cudart=static'), info.command.join(' '));
    assert.ok(info.command.includes(job.case ? '-O0' : HOST_O3), `built with ${job.case ? 'the cases\' -O0' : "the preset's " + HOST_O3}: ${info.command.join(' ')}`);
    const memory = JSON.parse(readFileSync(path.join(e.dir!, 'memory.json'), 'utf8')) as MemoryReport;
    assert.ok(memory.arrays.every((a) => a.storage === 'device'), 'every array is device storage');

    const exported = symbols((await execa('nm', ['-D', '--defined-only', e.library!])).stdout);
    assert.equal(exported.sort(), ABI.map((a) => `${sym}_${a}`).sort(), 'exports exactly the C ABI');
    const undefinedCuda = symbols((await execa('nm', ['-D', '--undefined-only', e.library!])).stdout).filter((s) => /^cu/.test(s));
    assert.equal(undefinedCuda, [], 'the CUDA runtime is linked in');

    const lib = NativeLibrary.open(e.library!, sym);
    try {
      assert.is(lib.target, 'cuda');
      const shape = (ps: { name: string; kind: string; dtype: string; axes?: string }[]) => ps.map(({ name, kind, dtype, axes }) => ({ name, kind, dtype, axes }));
      assert.equal(shape(lib.signature.params), shape(built.ir!.iface!.params));
      const call = job.callFor(built.ir!);
      if (device.runtime) {
        const got = runOnDevice(lib, device.runtime, call, config.codegen.loopOrder);
        assert.is(interpreterMismatch(interpret(call), got), null, 'device vs interpreter');
        if (job.case) assert.is(gt4pyMismatch(job.case, got), null, 'device vs GT4Py');
        return;
      }
      // No GPU: the run reaches the CUDA runtime and reports its refusal, naming the program.
      const args: Record<string, ArgValue> = {};
      for (const p of lib.signature.params) {
        const v = built.ir!.iface!.params.find((x) => x.name === p.name)!;
        args[p.name] = p.kind === 'field' ? { devicePtr: 0x100000n, dtype: p.dtype, shape: [...[...(v.axes ?? 'IJK')].map(() => 4), ...(v.dims ?? [])] } : p.dtype === 'bool' ? true : 1;
      }
      try {
        lib.run(args);
        assert.unreachable(`ran without a GPU (${device.reason})`);
      } catch (err) {
        if (!(err instanceof OrchError)) throw err;
        assert.is(err.diagnostic.code, 'E_RUNTIME');
        assert.match(err.message, `program '${built.ir!.iface!.name}'`);
        assert.match(err.message, /CUDA device|driver|cudaError/);
      }
    } finally {
      lib.close();
    }
  });
});

cudaBuild('build time of every entry', async () => {
  const all = await Promise.all(builds);
  const nvccSeconds = all.reduce((s, b) => s + (b.result ? b.seconds : 0), 0);
  const wall = (buildsDone - t0) / 1000;
  console.log(`\n  cuda-h100: ${all.filter((b) => b.result?.status === 'built').length} libraries built, ${wall.toFixed(1)} s wall (${testConcurrency()} at a time), ${nvccSeconds.toFixed(1)} s of builds; device: ${device.reason}`);
  assert.ok(all.length === jobs.length);
});

cudaBuild.run();
