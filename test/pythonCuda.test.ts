import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { presetNamed, resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { CudaRuntime } from '../core/runtime/CudaRuntime.js';
import { generateCuda } from '../plugins/codegen/generateCuda.js';
import { generatePythonBinding } from '../plugins/codegen/pythonBinding.js';
import { buildEmulated } from './cudaEmulation/emulate.js';
import { entryIR } from './gpuJobs.js';

/**
 * The Python binding of CUDA builds (device arrays through `__cuda_array_interface__`,
 * sync / async calls, streams, errors recorded by kernels), run without a GPU: programs
 * generated with the cuda-h100 preset are built with the CUDA emulation (kernels run on
 * the CPU, device memory is host memory) and driven by test/python/check_cuda_binding.py,
 * which poses numpy memory as device arrays.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');

const MODULE = `from gt4py.cartesian.gtscript import FORWARD, PARALLEL, computation, interval
from ndsl.dsl.typing import Float, FloatField, FloatFieldIJ, IntFieldIJ

from orch import program, stencil


@stencil
def axpy(x: FloatField, y: FloatField, a: Float):
    with computation(PARALLEL), interval(...):
        y = y + a * x


@stencil
def to_plane(x: FloatField, p: FloatFieldIJ):
    with computation(FORWARD), interval(0, 1):
        p = x


@stencil
def level_lookup(q: FloatField, lev: IntFieldIJ, out: FloatField):
    with computation(FORWARD), interval(...):
        out = q[0, 0, lev]


@program
def prog(x: FloatField, y: FloatField, p: FloatFieldIJ, a: Float, n: int):
    for i in range(n):
        axpy(x, y, a)
    to_plane(y, p)


@program
def lookup(q: FloatField, lev: IntFieldIJ, out: FloatField):
    level_lookup(q, lev, out)
`;

const t = suite('python binding of CUDA builds');

t('device arrays, sync and async calls, streams and device errors through the generated binding (emulated CUDA)', async () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'orch-py-cuda-'));
  const module = path.join(work, 'device_programs.py');
  writeFileSync(module, MODULE);
  const config = await resolveConfig({ configFile: null, cwd: work, preset: 'cuda-h100' });
  config.cacheRoot = work;
  const codegen = presetNamed('cuda-h100').codegen;
  const builds: Record<string, { binding: string; library: string }> = {};
  for (const entry of ['prog', 'lookup']) {
    const ir = await entryIR(config, { modules: [module], entry, externals: {}, defines: {} });
    assert.ok(ir.entry, ir.errors.map((d) => formatDiagnostic(d)).join('\n'));
    const dir = path.join(work, entry);
    mkdirSync(dir, { recursive: true });
    const out = generateCuda(ir.entry!.program!, {
      ...codegen,
      blockSize: codegen.blockSize!,
      columnBlockSize: codegen.columnBlockSize!,
      syncLaunches: false,
      sourceFileName: path.join(dir, 'host.cpp'),
      kernelFileName: path.join(dir, 'kernels.cu'),
    });
    const binding = path.join(dir, 'binding.py');
    writeFileSync(binding, generatePythonBinding(out.signature, out.symbol));
    builds[entry] = { binding, library: await buildEmulated(out, dir) };
  }
  const r = await execa('python3', [path.join(repo, 'test/python/check_cuda_binding.py'), JSON.stringify(builds)], {
    cwd: work,
    reject: false,
    env: { PYTHONPATH: path.join(repo, 'python'), GT_CACHE_ROOT: work },
  });
  assert.is(r.exitCode, 0, `${String(r.stdout)}\n${String(r.stderr)}`);
  assert.is(String(r.stdout).trim(), 'ok');
});

t('ORCH_MODE=build-and-run with a cuda preset: the package builds with nvcc and calls through the CUDA binding', async () => {
  // The call reaches the library, which refuses to run: without a GPU because there is no
  // driver or device, with one because the "device" array below wraps host (pageable)
  // memory, which no kernel may read. Either way a ProgramError names the program.
  const work = mkdtempSync(path.join(os.tmpdir(), 'orch-py-cuda-build-'));
  writeFileSync(path.join(work, 'device_programs.py'), MODULE);
  writeFileSync(path.join(work, 'orch.config.mjs'), "export default { preset: 'cuda-h100' };\n");
  const code = `
import sys, numpy as np, orch
sys.path.insert(0, sys.argv[1])
import device_programs as m
x, y, p = np.ones((4, 3, 2)), np.zeros((4, 3, 2)), np.zeros((4, 3))
class DeviceArray:
    def __init__(self, a):
        self.__cuda_array_interface__ = {"shape": a.shape, "typestr": a.dtype.str, "data": (a.ctypes.data, False), "strides": None, "version": 3, "stream": None}
try:
    m.prog(x, y, p, 1.0, 1)
except TypeError as e:
    assert "argument 'x' is a host numpy array" in str(e), e
else:
    raise AssertionError("a numpy array was taken by a CUDA build")
m.prog.sync()  # nothing queued yet
try:
    m.prog(DeviceArray(x), DeviceArray(y), DeviceArray(p), 1.0, 1)
except RuntimeError as e:
    assert type(e).__name__ == "ProgramError", repr(e)
    print("ProgramError:", e)
else:
    raise AssertionError("a CUDA build ran on host memory posing as a device array")
`;
  const r = await execa('python3', ['-c', code, work], { cwd: work, reject: false, env: { PYTHONPATH: path.join(repo, 'python'), GT_CACHE_ROOT: work, ORCH_MODE: 'build-and-run' } });
  assert.is(r.exitCode, 0, `${String(r.stdout)}\n${String(r.stderr)}`);
  const expected = hasGpu()
    ? /^ProgramError: program 'prog': argument 'x' is host memory; a CUDA build takes device arrays \(CuPy, cudaMalloc'ed or managed memory\)$/m
    : /^ProgramError: program 'prog': selecting a CUDA device failed: /m;
  assert.match(String(r.stdout), expected);
});

/** Whether this machine can run CUDA programs (the CI machine cannot). */
function hasGpu(): boolean {
  try {
    return CudaRuntime.open().devices().count > 0;
  } catch {
    return false;
  }
}

t.run();
