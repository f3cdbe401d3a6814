import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../core/config/loadConfig.js';
import { allocate } from '../core/runtime/ndarray.js';
import { NativeLibrary } from '../core/runtime/NativeLibrary.js';

/**
 * Cost of one program call from Python (issue 4: "a call costs microseconds"): a program
 * with 4 fields, 3 scalars and one stencil on a single point, so the time is the call
 * path, not the work. Measured in the same run:
 *   - `run` through ctypes with a packed argument block (the floor),
 *   - the generated binding (argument checks on the fast path, scalars written, run),
 *   - a `@program` call through the orch package (dispatch on compile-time values + binding),
 *   - a program with a Python callback (one call back per run),
 *   - the Node binding (NativeLibrary.run, bound arguments).
 *
 *   npm run build && node dist/bench/pythonCall.js [--calls N]
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const calls = Number(process.argv[process.argv.indexOf('--calls') + 1] || 200000) || 200000;

const MODULE = `from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl.dsl.typing import Float, FloatField

from orch import callback, program, stencil


@stencil
def axpy(x: FloatField, y: FloatField, a: Float):
    with computation(PARALLEL), interval(...):
        y = y + a * x


@callback
def weight(a: float) -> float:
    return 0.5 * a


@program
def tiny(x: FloatField, y: FloatField, u: FloatField, v: FloatField, a: Float, b: Float, n: int):
    axpy(x, y, a + b, origin=(0, 0, 0), domain=(1, 1, 1))


@program
def tiny_callback(x: FloatField, y: FloatField, a: Float):
    w = weight(a)
    axpy(x, y, w, origin=(0, 0, 0), domain=(1, 1, 1))
`;

const PYTHON = `
import ctypes, json, sys, time
import numpy as np
import orch
sys.path.insert(0, sys.argv[1])
import calls_module as m
from orch.library import binding_module

N = int(sys.argv[2])
x, y, u, v = (np.ones((8, 8, 4)) for _ in range(4))

def per_call(fn):
    fn()
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(N):
            fn()
        best = min(best, (time.perf_counter() - t) / N)
    return best * 1e6

program = lambda: m.tiny(x, y, u, v, 1.0, 2.0, 3)
t_program = per_call(program)
report = orch.cli.build_entry(m.tiny.__wrapped__.__code__.co_filename, "tiny", {}, build=False)
b = binding_module(report["binding"]).Program(report["library"])
t_binding = per_call(lambda: b(x, y, u, v, 1.0, 2.0, 3))
run, handle, args = b._run, b._handle, b._args
t_ctypes = per_call(lambda: run(handle, args))
t_callback = per_call(lambda: m.tiny_callback(x, y, 1.0))
print(json.dumps({"ctypes_run_us": t_ctypes, "binding_us": t_binding, "program_us": t_program, "program_with_callback_us": t_callback}))
`;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-bench-pycall-'));
  writeFileSync(path.join(dir, 'calls_module.py'), MODULE);
  const env = { PYTHONPATH: path.join(repo, 'python'), GT_CACHE_ROOT: dir, ORCH_MODE: 'build-and-run' };
  const py = await execa('python3', ['-c', PYTHON, dir, String(calls)], { cwd: dir, env, reject: false });
  if (py.exitCode !== 0) throw new Error(String(py.stderr));
  const r = JSON.parse(String(py.stdout).trim().split('\n').pop()!) as Record<string, number>;

  const config = await resolveConfig({ configFile: null, cwd: dir });
  config.cacheRoot = dir;
  const c = new Compiler(config, { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined });
  const built = await c.build({ modules: [path.join(dir, 'calls_module.py')], entry: 'tiny', externals: {}, defines: {}, mode: 'build' });
  const lib = NativeLibrary.open(built.entries[0].library!, built.entries[0].symbol!);
  const f = () => allocate('float64', [8, 8, 4]);
  lib.bind({ x: f(), y: f(), u: f(), v: f(), a: 1, b: 2, n: 3 });
  lib.run();
  let best = Infinity;
  for (let rep = 0; rep < 3; rep++) {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) lib.run();
    best = Math.min(best, ((performance.now() - t0) * 1e3) / calls);
  }
  lib.close();

  const rows: [string, number][] = [
    ['ctypes: run() with a packed argument block (floor)', r.ctypes_run_us],
    ['generated binding: Program(...)(x, y, u, v, a, b, n)', r.binding_us],
    ['orch package: @program call (compiled mode)', r.program_us],
    ['orch package: @program with one Python callback', r.program_with_callback_us],
    ['Node: NativeLibrary.run (bound arguments)', best],
  ];
  process.stdout.write(`per-call cost of a program call (4 fields, 3 scalars, one 1-point stencil), best of 3 x ${calls} calls:\n`);
  for (const [what, us] of rows) process.stdout.write(`  ${us.toFixed(2).padStart(7)} us  ${what}\n`);
  process.stdout.write(`  orch package over the raw ctypes call: ${(r.program_us - r.ctypes_run_us).toFixed(2)} us\n`);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
