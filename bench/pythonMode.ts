import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { buildEntryArgs, type CallSpec } from '../core/runtime/callArgs.js';
import { EntryRunner } from '../core/runtime/EntryRunner.js';
import { allocate } from '../core/runtime/ndarray.js';

/**
 * `npm run bench:python`: the cost of a `@program` call in Python mode without GT4Py (issue
 * 13 item 5: at most 50 ms for a 3-stencil program on 16x8x5 after the first call). Each
 * stencil call goes to one long-lived `orch serve` with its fields as raw bytes over the pipe
 * (python/orch/interpreter.py). Measured in the same run:
 *   - the first call (starts `orch serve`, lowers the three stencils),
 *   - the median, minimum and 90th percentile of the next calls (wall time),
 *   - the CPU time per call of the Python process and of `orch serve` (what the call costs
 *     on a loaded machine, where wall time also counts waiting for a core),
 *   - the interpreter's own time for the same three stencil calls in this Node process
 *     (EntryRunner.run, median): what a call costs at best; the rest is the transport.
 *
 *   npm run build && node dist/bench/pythonMode.js [--calls N]
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const calls = Number(process.argv[process.argv.indexOf('--calls') + 1] || 200) || 200;
const SHAPE: [number, number, number] = [16, 8, 5];

const MODULE = `from gt4py.cartesian.gtscript import FORWARD, PARALLEL, computation, interval
from ndsl.dsl.typing import Float, FloatField

from orch import program, stencil


@stencil
def laplacian(q: FloatField, lap: FloatField):
    with computation(PARALLEL), interval(...):
        lap = q[1, 0, 0] + q[-1, 0, 0] + q[0, 1, 0] + q[0, -1, 0] - 4.0 * q


@stencil
def update(q: FloatField, lap: FloatField, nu: Float):
    with computation(PARALLEL), interval(...):
        q = q + nu * lap


@stencil
def column(q: FloatField, acc: FloatField):
    with computation(FORWARD):
        with interval(0, 1):
            acc = q
        with interval(1, None):
            acc = acc[0, 0, -1] + q


@program
def step(q: FloatField, lap: FloatField, acc: FloatField, nu: Float):
    laplacian(q, lap, origin=(1, 1, 0), domain=(14, 6, 5))
    update(q, lap, nu, origin=(1, 1, 0), domain=(14, 6, 5))
    column(q, acc, origin=(0, 0, 0), domain=(16, 8, 5))
`;

const PYTHON = `
import json, os, statistics, sys, time
import numpy as np
import orch
sys.path.insert(0, sys.argv[1])
import three_stencils as m

q = np.random.default_rng(0).random((16, 8, 5))
lap, acc = np.zeros_like(q), np.zeros_like(q)
t = time.perf_counter()
m.step(q, lap, acc, 0.01)
first = time.perf_counter() - t
serve = orch.interpreter._serve._process.pid

def serve_cpu():
    # utime + stime of the serve process (Linux /proc), in seconds
    with open(f"/proc/{serve}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

n = int(sys.argv[2])
times = []
cpu0, serve0 = time.process_time(), serve_cpu()
for _ in range(n):
    t = time.perf_counter()
    m.step(q, lap, acc, 0.01)
    times.append(time.perf_counter() - t)
cpu, serve_s = time.process_time() - cpu0, serve_cpu() - serve0
times.sort()
print(json.dumps({"first_ms": first * 1e3, "median_ms": statistics.median(times) * 1e3, "min_ms": times[0] * 1e3, "p90_ms": times[int(0.9 * (len(times) - 1))] * 1e3,
                  "python_cpu_ms": cpu / n * 1e3, "serve_cpu_ms": serve_s / n * 1e3}))
`;

/** Median milliseconds of the three stencil calls of `step` on the interpreter, in this process. */
async function interpreterOnly(dir: string, module: string): Promise<number> {
  const config = await resolveConfig({ configFile: null, cwd: dir });
  config.cacheRoot = dir;
  const compiler = new Compiler(config, { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined });
  const runner = new EntryRunner(compiler);
  const field = () => allocate('float64', SHAPE);
  const [q, lap, acc] = [field(), field(), field()];
  q.data.forEach((_, i) => ((q.data as Float64Array)[i] = Math.sin(i)));
  const stencils: (CallSpec & { name: string })[] = [
    { name: 'laplacian', fields: { q, lap }, scalars: {}, origin: [1, 1, 0], domain: [14, 6, 5] },
    { name: 'update', fields: { q, lap }, scalars: { nu: 0.01 }, origin: [1, 1, 0], domain: [14, 6, 5] },
    { name: 'column', fields: { q, acc }, scalars: {}, origin: [0, 0, 0], domain: [...SHAPE] },
  ];
  const ready = await Promise.all(stencils.map((s) => runner.prepare(module, s.name, 'python')));
  const times: number[] = [];
  for (let c = 0; c < calls + 1; c++) {
    let t = 0;
    stencils.forEach((s, i) => (t += runner.run(ready[i], buildEntryArgs(ready[i].iface, s))[0]));
    if (c > 0) times.push(t * 1e3);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-bench-pymode-'));
  const module = path.join(dir, 'three_stencils.py');
  writeFileSync(module, MODULE);
  const env = { PYTHONPATH: path.join(repo, 'python'), GT_CACHE_ROOT: dir, ORCH_MODE: 'python', ORCH_CLI: path.join(repo, 'dist/bin/orch.js') };
  const py = await execa('python3', ['-c', PYTHON, dir, String(calls)], { cwd: dir, env, reject: false });
  if (py.exitCode !== 0) throw new Error(String(py.stderr));
  const r = JSON.parse(String(py.stdout).trim().split('\n').pop()!) as Record<string, number>;
  const interp = await interpreterOnly(dir, module);
  const ms = (x: number) => `${x.toFixed(2).padStart(8)} ms`;
  process.stdout.write(`Python mode (orch serve, no GT4Py): a 3-stencil @program on ${SHAPE.join('x')}, ${calls} calls after the first, wall time:\n`);
  process.stdout.write(`  ${ms(r.first_ms)}  first call (starts orch serve, lowers the stencils)\n`);
  process.stdout.write(`  ${ms(r.median_ms)}  median call (target 50 ms)\n`);
  process.stdout.write(`  ${ms(r.min_ms)}  fastest call\n`);
  process.stdout.write(`  ${ms(r.p90_ms)}  90th percentile\n`);
  process.stdout.write(`  ${ms(r.python_cpu_ms)}  CPU time per call, Python process\n`);
  process.stdout.write(`  ${ms(r.serve_cpu_ms)}  CPU time per call, orch serve\n`);
  process.stdout.write(`  ${ms(interp)}  the interpreter alone on the same three calls (median, in-process)\n`);
  process.stdout.write(`  ${ms(r.median_ms - interp)}  transport and Python per call (median call - interpreter alone)\n`);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
