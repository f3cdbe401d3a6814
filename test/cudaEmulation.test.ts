import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import koffi from 'koffi';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { EntryResult } from '../core/Compiler.js';
import { NATIVE_DIR } from '../core/cache/hashing.js';
import { presetNamed, resolveConfig } from '../core/config/loadConfig.js';
import { formatDiagnostic, OrchError, OrchErrors } from '../core/diagnostics.js';
import type { DeviceMemory } from '../core/runtime/deviceArgs.js';
import type { TypedArray } from '../core/runtime/ndarray.js';
import { NativeLibrary } from '../core/runtime/NativeLibrary.js';
import { generateCuda, type CudaOptions } from '../plugins/codegen/cuda.js';
import { compileSharedLibrary } from '../plugins/compile/gxx.js';
import { gt4pyMismatch } from './conformanceKit.js';
import { interpret, interpreterMismatch, runOnDevice, type EntryCall } from './deviceRuns.js';
import { eagerLimited, entryIR, gpuJobs, testConcurrency } from './gpuJobs.js';

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

const here = path.dirname(fileURLToPath(import.meta.url));
const SHIM_DIR = path.resolve(here, '../../test/cudaEmulation');
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

/** Host memory standing in for device memory: the emulated kernels address it directly. */
class HostMemory implements DeviceMemory {
  private readonly buffers = new Map<bigint, ArrayBuffer>();
  malloc(bytes: number): bigint {
    const buffer = new ArrayBuffer(Math.max(8, bytes));
    const address = koffi.address(buffer) as bigint;
    this.buffers.set(address, buffer);
    return address;
  }
  free(ptr: bigint): void {
    this.buffers.delete(ptr);
  }
  toDevice(dst: bigint, src: TypedArray): void {
    new Uint8Array(this.buffer(dst)).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
  }
  toHost(dst: TypedArray, src: bigint): void {
    new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(new Uint8Array(this.buffer(src), 0, dst.byteLength));
  }
  private buffer(ptr: bigint): ArrayBuffer {
    const b = this.buffers.get(ptr);
    if (!b) throw new Error(`no emulated device allocation at 0x${ptr.toString(16)}`);
    return b;
  }
}

const LAUNCH = /(\w+)<<<grid, block, 0, stream>>>\(/g;

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
    writeFileSync(path.join(dir, 'host.cpp'), out.source);
    writeFileSync(path.join(dir, 'kernels.cu'), out.kernels);
    writeFileSync(path.join(dir, `${out.symbol}_kernels.h`), out.launchers);
    writeFileSync(path.join(dir, 'kernels.emulated.cpp'), out.kernels.replace(LAUNCH, 'orch_emulate_launch($1, grid, block, '));
    writeFileSync(path.join(dir, 'emulated.cpp'), '#include "host.cpp"\n#include "kernels.emulated.cpp"\n');
    const library = path.join(dir, `lib${out.symbol}.so`);
    await compileSharedLibrary({
      compiler: 'g++',
      flags: ['-O1', '-std=c++17', '-fPIC', '-shared', '-fvisibility=hidden'],
      source: path.join(dir, 'emulated.cpp'),
      output: library,
      cwd: dir,
      includeDirs: [SHIM_DIR, NATIVE_DIR, dir],
    });
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
  for (const kind of ['PARALLEL loop nest', 'FORWARD column', 'BACKWARD column', 'one FORWARD level', 'one BACKWARD level', 'PARALLEL loop nest (K in each thread']) {
    assert.ok(kernelKinds.has(kind), `no case produced a '${kind}' kernel; seen: ${[...kernelKinds].join(', ')}`);
  }
});

emulation.run();
