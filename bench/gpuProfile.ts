import os from 'node:os';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { OrchError } from '../core/diagnostics.js';
import { CudaRuntime } from '../core/runtime/CudaRuntime.js';
import { hostCallbacks } from '../core/runtime/hostCallbacks.js';
import { stageOnDevice } from '../core/runtime/deviceArgs.js';
import { NativeLibrary } from '../core/runtime/NativeLibrary.js';
import { callArgs } from '../test/deviceRuns.js';
import { gpuJobs } from '../test/gpuJobs.js';
import { scaledCall } from './scaledCalls.js';

/**
 * Runs chosen entries of the GPU bench once each at one shape, for a kernel profiler:
 *
 *   ncu -k regex:orch_ --metrics ... node dist/bench/gpuProfile.js --only NAME[,NAME] [--shape 192x192x80] [--preset cuda-h100]
 *
 * Only the program's own kernels run between the staging copies, so every `orch_` kernel
 * the profiler sees belongs to the entries named (in their order), one call each.
 */

const argv = process.argv.slice(2);
const flag = (name: string, fallback: string): string => {
  const n = argv.indexOf(name);
  return n >= 0 && argv[n + 1] ? argv[n + 1] : fallback;
};
const only = new Set(flag('--only', '').split(',').filter(Boolean));
const shape = flag('--shape', '192x192x80').split('x').map(Number) as [number, number, number];
if (!only.size || shape.length !== 3 || shape.some((d) => !Number.isInteger(d) || d < 1)) {
  process.stderr.write('usage: node dist/bench/gpuProfile.js --only NAME[,NAME] [--shape NXxNYxNZ] [--preset cuda-h100]\n');
  process.exit(2);
}
const runtime = CudaRuntime.open();
const work = process.env.GT_CACHE_ROOT ?? mkdtempSync(path.join(os.tmpdir(), 'orch-gpu-profile-'));
const config = await resolveConfig({ configFile: null, cwd: work, preset: flag('--preset', 'cuda-h100') });
config.cacheRoot = work;
const quiet = { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined };
const compiler = new Compiler(config, quiet);
const jobs = (await gpuJobs(config)).filter((j) => only.has(j.name));
// nvcc is the slow part: build all first, concurrently, then run one at a time
const built = await Promise.all(
  jobs.map(async (job) => {
    const r = await compiler.build({ ...job.request, mode: 'build' });
    if (r.errors.length) throw new OrchError(r.errors[0]);
    const entry = r.entries[0];
    if (!entry.program) {
      const ir = await new Compiler(config, { ...quiet, stopAfter: 'debugInsertion' }).build({ ...job.request, mode: 'python' });
      entry.program = ir.entries[0].program;
      entry.iface = ir.entries[0].iface;
    }
    return entry;
  }),
);
for (const [n, job] of jobs.entries()) {
  const entry = built[n];
  const lib = NativeLibrary.open(entry.library!, entry.symbol!);
  if (entry.iface?.callbacks?.length) lib.setCallbacks(hostCallbacks(entry.iface));
  const { args } = callArgs(scaledCall(job.callFor(entry), shape));
  const staged = stageOnDevice(runtime, lib.signature.params, args, config.codegen.loopOrder);
  try {
    lib.run(staged.args);
    process.stdout.write(`profiled ${job.name} at ${shape.join('x')}\n`);
  } finally {
    staged.free();
    lib.close();
  }
}
const missing = [...only].filter((n) => !jobs.some((j) => j.name === n));
if (missing.length) process.stderr.write(`no such entry: ${missing.join(', ')}\n`);
