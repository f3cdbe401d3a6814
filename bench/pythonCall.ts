import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { allocate } from '../core/runtime/ndarray.js';
import { NativeLibrary } from '../core/runtime/NativeLibrary.js';

/**
 * Cost of one program call from Python (issue 4: "a call costs microseconds"; issue 5: at
 * most 1 us + 10 ns per field): programs with 1, 4 and 16 fields and one stencil on a
 * single point, so the time is the call path, not the work. Measured in the same run, for
 * each program:
 *   - `run` through ctypes with a packed argument block (the floor),
 *   - the binding's checks in Python, then `run` (`_call_checked`: the call path before
 *     `run_bound`, and still the path of new or changed arrays),
 *   - the generated binding (the fields compared in C by `run_bound`, scalars written),
 *   - a `@program` call through the orch package (dispatch on compile-time values + binding),
 * and a program with a Python callback (one call back per run) and the Node binding
 * (NativeLibrary.run, bound arguments) of the 4-field program.
 *
 * Times are CPU time of the calling thread, best of 40 runs of calls/40: on a shared
 * machine other processes preempt the loop, which wall time would count.
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


@stencil
def sum16(f0: FloatField, f1: FloatField, f2: FloatField, f3: FloatField, f4: FloatField, f5: FloatField, f6: FloatField, f7: FloatField,
          f8: FloatField, f9: FloatField, f10: FloatField, f11: FloatField, f12: FloatField, f13: FloatField, f14: FloatField, f15: FloatField, a: Float):
    with computation(PARALLEL), interval(...):
        f0 = a * (f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10 + f11 + f12 + f13 + f14 + f15)


@program
def one(x: FloatField, a: Float):
    axpy(x, x, a, origin=(0, 0, 0), domain=(1, 1, 1))


@program
def sixteen(f0: FloatField, f1: FloatField, f2: FloatField, f3: FloatField, f4: FloatField, f5: FloatField, f6: FloatField, f7: FloatField,
            f8: FloatField, f9: FloatField, f10: FloatField, f11: FloatField, f12: FloatField, f13: FloatField, f14: FloatField, f15: FloatField, a: Float):
    sum16(f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, a, origin=(0, 0, 0), domain=(1, 1, 1))


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
RUNS = 40
fs = [np.ones((8, 8, 4)) for _ in range(16)]
x, y, u, v = fs[:4]

def per_call(fn):
    fn()
    n = max(1, N // RUNS)
    best = float("inf")
    for _ in range(RUNS):
        t = time.thread_time()
        for _ in range(n):
            fn()
        best = min(best, (time.thread_time() - t) / n)
    return best * 1e6

def binding(program):
    report = orch.cli.build_entry(program.__wrapped__.__code__.co_filename, program.__name__, {}, build=False)
    return binding_module(report["binding"]).Program(report["library"])

out = {}
for name, program, args in (("1", m.one, (x, 1.0)), ("4", m.tiny, (x, y, u, v, 1.0, 2.0, 3)), ("16", m.sixteen, (*fs, 1.0))):
    out[f"program_us_{name}"] = per_call(lambda: program(*args))
    b = binding(program)
    out[f"binding_us_{name}"] = per_call(lambda: b(*args))
    # the same binding's checks in Python, then run: the call path before run_bound
    out[f"checked_us_{name}"] = per_call(lambda: b._call_checked(*args))
    run, handle, block = b._run, b._handle, b._args
    out[f"ctypes_run_us_{name}"] = per_call(lambda: run(handle, block))
out["program_with_callback_us"] = per_call(lambda: m.tiny_callback(x, y, 1.0))
print(json.dumps(out))
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

  const fields = ['1', '4', '16'];
  process.stdout.write(`per-call cost of a program call (one 1-point stencil), best of 40 x ${Math.floor(calls / 40)} calls, thread CPU time:\n`);
  process.stdout.write(`  ${'fields'.padStart(6)}  ${'ctypes run (floor)'.padStart(18)}  ${'checks in Python'.padStart(16)}  ${'generated binding'.padStart(17)}  ${'@program call'.padStart(13)}  ${'target'.padStart(7)}\n`);
  for (const n of fields) {
    const cells = [r[`ctypes_run_us_${n}`], r[`checked_us_${n}`], r[`binding_us_${n}`], r[`program_us_${n}`]].map((us) => `${us.toFixed(2)} us`);
    const target = `${(1 + 0.01 * Number(n)).toFixed(2)} us`;
    process.stdout.write(`  ${n.padStart(6)}  ${cells[0].padStart(18)}  ${cells[1].padStart(16)}  ${cells[2].padStart(17)}  ${cells[3].padStart(13)}  ${target.padStart(7)}\n`);
  }
  process.stdout.write(`  ${r.program_with_callback_us.toFixed(2).padStart(7)} us  @program with one Python callback (2 fields, 1 scalar)\n`);
  process.stdout.write(`  ${best.toFixed(2).padStart(7)} us  Node: NativeLibrary.run (4 fields, bound arguments)\n`);
  process.stdout.write(`  @program call over the raw ctypes call (4 fields): ${(r.program_us_4 - r.ctypes_run_us_4).toFixed(2)} us\n`);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
