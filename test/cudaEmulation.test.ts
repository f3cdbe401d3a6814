import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { EntryResult } from '../core/Compiler.js';
import { presetNamed, resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic, OrchError, OrchErrors } from '../core/diagnostics.js';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import { allocate, type NDArray } from '../core/runtime/ndarray.js';
import { NativeLibrary } from '../core/runtime/NativeLibrary.js';
import { parseExternals } from '../core/frontend/externalsJson.js';
import { generateCuda, type CudaOptions } from '../plugins/codegen/generateCuda.js';
import { gt4pyMismatch } from './conformanceKit.js';
import { callArgs, interpret, interpreterMismatch, runOnDevice, type EntryCall } from './deviceRuns.js';
import { buildEmulated, HostMemory } from './cudaEmulation/emulate.js';
import { CUDA_GAPS, eagerLimited, entryIR, gpuJobs, testConcurrency } from './gpuJobs.js';

/**
 * The CUDA backend's generated code, run on the CPU. Every conformance case and fixture
 * entry is generated with the cuda-h100 preset's options, built with g++ against the CUDA
 * API stand-in in test/cudaEmulation/ (kernel launches become loops over blocks and
 * threads), and run with the threads in increasing and in decreasing order, on arrays
 * laid out as on the device. Both runs must match the interpreter, and GT4Py's outputs
 * for conformance cases.
 *
 * This checks what a GPU-less machine can check of the generated code beyond nvcc
 * accepting it: the thread mapping and grid-stride loops, the choice between column
 * sweeps, per-level launches and axes serialized in a thread (a wrong choice makes the
 * result depend on thread order), temporaries' layout and zero fill, bounds checks and
 * the host program around the launches. It cannot check timing, the memory model of a
 * real GPU, or CUDA's device math library.
 */

const work = mkdtempSync(path.join(os.tmpdir(), 'orch-cuda-emulation-'));
const preset = presetNamed('cuda-h100');
const config = await resolveConfig({ configFile: null, cwd: work, preset: 'cuda-h100' });
config.cacheRoot = work;
const options: CudaOptions = {
  ...preset.codegen,
  blockSize: preset.codegen.blockSize!,
  columnBlockSize: preset.codegen.columnBlockSize!,
  syncLaunches: false,
};

interface Built {
  entry?: EntryResult;
  gap?: string;
  library?: string;
  symbol?: string;
  kernels?: string;
  error?: unknown;
}

/** Generates the CUDA sources of an entry and builds them for the CPU. */
async function emulatedBuild(name: string, request: Parameters<typeof entryIR>[1]): Promise<Built> {
  const ir = await entryIR(config, request);
  if (!ir.entry) return { gap: ir.errors.map((d) => formatDiagnostic(d)).join('\n') };
  const dir = path.join(work, name.replace(/[^A-Za-z0-9_.-]/g, '_'));
  mkdirSync(dir, { recursive: true });
  try {
    const out = generateCuda(ir.entry.program!, { ...options, sourceFileName: path.join(dir, 'host.cpp'), kernelFileName: path.join(dir, 'kernels.cu') });
    const library = await buildEmulated(out, dir);
    return { entry: ir.entry, library, symbol: out.symbol, kernels: out.kernels };
  } catch (e) {
    return { entry: ir.entry, error: e };
  }
}

function runOrdered(lib: NativeLibrary, call: EntryCall, order: 'forward' | 'reverse') {
  process.env.ORCH_EMULATE_ORDER = order;
  try {
    return runOnDevice(lib, new HostMemory(), call, options.loopOrder);
  } finally {
    delete process.env.ORCH_EMULATE_ORDER;
  }
}

function describeError(e: unknown): string {
  if (e instanceof OrchError) return formatDiagnostic(e.diagnostic, { verbose: true });
  if (e instanceof OrchErrors) return e.diagnostics.map((d) => formatDiagnostic(d, { verbose: true })).join('\n');
  return String((e as Error)?.stack ?? e);
}

const jobs = await gpuJobs(config);
const builds = eagerLimited(jobs, testConcurrency(), (job) => emulatedBuild(job.name, job.request));
const kernelKinds = new Set<string>();

const emulation = suite('CUDA code emulated on the CPU');

jobs.forEach((job, n) => {
  emulation(`${job.name}: CUDA kernels match the interpreter in both thread orders`, async () => {
    const built = await builds[n];
    if (built.gap !== undefined) {
      // The frontend rejects it for every target (conformance.test.ts tracks these).
      assert.ok(job.case, `fixture ${job.name} does not build:\n${built.gap}`);
      assert.match(built.gap, /error E_[A-Z_]+/, 'the frontend reports a coded, located error');
      return;
    }
    const gap = CUDA_GAPS[job.name];
    if (gap) {
      assert.instance(built.error, OrchError, `${job.name} is a CUDA gap but now generates: remove it from CUDA_GAPS`);
      assert.is((built.error as OrchError).diagnostic.code, gap);
      return;
    }
    if (built.error) assert.unreachable(`generated CUDA does not build for the CPU:\n${describeError(built.error)}`);
    for (const m of built.kernels!.matchAll(/^\/\/ (PARALLEL loop nest|FORWARD column|BACKWARD column|one (?:FORWARD|BACKWARD) level)[^\n]*?( \([IJK]+ in each thread)?/gm)) {
      kernelKinds.add(`${m[1]}${m[2] ?? ''}`);
    }
    const call = job.callFor(built.entry!);
    const want = interpret(call);
    const lib = NativeLibrary.open(built.library!, built.symbol!);
    try {
      assert.is(lib.target, 'cuda');
      for (const order of ['forward', 'reverse'] as const) {
        let got;
        try {
          got = runOrdered(lib, call, order);
        } catch (e) {
          assert.unreachable(`${order} run failed: ${describeError(e)}`);
        }
        assert.is(interpreterMismatch(want, got!), null, `threads in ${order} order vs the interpreter`);
        if (job.case) assert.is(gt4pyMismatch(job.case, got!), null, `threads in ${order} order vs GT4Py`);
      }
    } finally {
      lib.close();
    }
  });
});

emulation('the cases exercise every kind of kernel the backend emits', () => {
  // (PARALLEL nests with K or IJ serialized in each thread need a 2-D or 1-D field written in
  // PARALLEL, which GT4Py and orch refuse: E_WRITE_AXES)
  for (const kind of ['PARALLEL loop nest', 'FORWARD column', 'BACKWARD column', 'one FORWARD level', 'one BACKWARD level']) {
    assert.ok(kernelKinds.has(kind), `no case produced a '${kind}' kernel; seen: ${[...kernelKinds].join(', ')}`);
  }
});

/*
 * Calls the language rejects at run time (fixtures/rejections cases with `run`: reads at a
 * variable K offset outside the array, found inside the kernels) must fail on the GPU with
 * the interpreter's diagnostic, recorded on the device and reported by the host.
 */
const rejections = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/rejections');
interface RunSpec {
  entry: string;
  externals?: Record<string, unknown>;
  run?: { domain: number[]; origin: number[]; fields: Record<string, number[]>; scalars?: Record<string, number>; fill?: Record<string, number> };
}
for (const name of readdirSync(rejections).sort()) {
  const dir = path.join(rejections, name);
  const spec = JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8')) as RunSpec;
  if (!spec.run) continue;
  const run = spec.run;
  emulation(`rejection ${name}: the CUDA run reports the interpreter's diagnostic`, async () => {
    const built = await emulatedBuild(`rejection ${name}`, { modules: [path.join(dir, 'module.py')], entry: spec.entry, externals: parseExternals(JSON.stringify(spec.externals ?? {})), defines: {} });
    if (built.error || built.gap !== undefined) assert.unreachable(built.gap ?? describeError(built.error));
    const iface = built.entry!.iface!;
    const inputs: Record<string, NDArray> = {};
    for (const [f, shape] of Object.entries(run.fields)) {
      const a = allocate(iface.params.find((p) => p.name === f)!.dtype, shape);
      for (let n = 0; n < a.data.length; n++) {
        const v = run.fill?.[f] ?? (n % 7) * 0.25;
        if (a.data instanceof BigInt64Array) a.data[n] = BigInt(Math.trunc(v));
        else a.data[n] = v;
      }
      inputs[f] = a;
    }
    const call: EntryCall = { iface, program: built.entry!.program!, inputs, call: { scalars: run.scalars ?? {}, domain: run.domain, origin: run.origin } };
    const diagnostic = (fn: () => unknown): string => {
      try {
        fn();
      } catch (e) {
        if (e instanceof OrchError) return formatDiagnostic(e.diagnostic);
        throw e;
      }
      assert.unreachable('the call was expected to fail');
      return '';
    };
    const want = diagnostic(() => new Interpreter(call.program).run(callArgs(call).args));
    const lib = NativeLibrary.open(built.library!, built.symbol!);
    try {
      // The first failure recorded wins: with threads in increasing order that is the
      // interpreter's first; in another order, another failing point, in the same words.
      assert.fixture(diagnostic(() => runOrdered(lib, call, 'forward')), want, 'threads in forward order');
      const anyPoint = (text: string) => text.replace(/K index -?\d+,/, 'K index …,').replace(/\(compute point -?\d+, -?\d+, -?\d+\)/, '(compute point …)');
      assert.fixture(anyPoint(diagnostic(() => runOrdered(lib, call, 'reverse'))), anyPoint(want), 'threads in reverse order');
      // The error does not stay in the device error record: on zero inputs (levels 0, in
      // bounds) the same handle runs and matches the interpreter.
      const zeros: EntryCall = { ...call, inputs: Object.fromEntries(Object.entries(inputs).map(([f, a]) => [f, allocate(a.dtype, a.shape)])) };
      let want0: Record<string, NDArray> | undefined;
      try {
        want0 = interpret(zeros);
      } catch {
        // rejected whatever the data (a domain the intervals do not fit)
      }
      if (want0) assert.is(interpreterMismatch(want0, runOrdered(lib, zeros, 'forward')), null, 'a good run after a failed one');
    } finally {
      lib.close();
    }
  });
}

emulation.run();
