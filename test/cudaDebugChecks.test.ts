import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import type { DebugOptions } from '../core/config/types.js';
import { formatDiagnostic } from '../core/diagnostics.js';

/**
 * Debug checkers in CUDA builds (the CPU side is test/debugChecks.test.ts, on the same
 * module, fixtures/debug/physics.py). The checks run inside the kernels and record failures
 * in the device error record instead of trapping; the host reports them after the launch
 * with the CPU build's words: abort ends the run with the first failure, log prints the
 * first 20 and goes on. The kernels run emulated on the CPU (test/cudaEmulation), in a
 * process of their own so their stderr can be read, and are compared with `orch run` of
 * the CPU build. A debug build must also compile with nvcc.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const orchBin = path.resolve(here, '../bin/orch.js');
const emulatedRun = path.resolve(here, 'cudaEmulation/emulatedRun.js');
const MODULE = path.resolve(here, '../../fixtures/debug/physics.py');

type Debug = Partial<DebugOptions>;

function project(debug: Debug): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-cuda-debug-'));
  copyFileSync(MODULE, path.join(dir, 'm.py'));
  writeFileSync(path.join(dir, 'orch.config.ts'), `export default { debug: ${JSON.stringify(debug)} };\n`);
  return dir;
}

/** `orch run --debug` of the CPU build. */
const cpuRun = (dir: string, shape: string, w: number) =>
  execa(process.execPath, [orchBin, 'run', 'm.py:physics', '--mode', 'build-and-run', '--debug', '--shape', shape, '--scalars', JSON.stringify({ w })], { cwd: dir, env: { GT_CACHE_ROOT: dir }, reject: false });

/** The same call of the cuda-h100 build, emulated with the threads in `order`. */
const gpuRun = (dir: string, debug: Debug | undefined, shape: string, w: number, order: 'forward' | 'reverse' = 'forward') =>
  execa(process.execPath, [emulatedRun, JSON.stringify({ module: path.join(dir, 'm.py'), entry: 'physics', shape: shape.split(',').map(Number), scalars: { w }, debug })], {
    cwd: dir,
    env: { ORCH_EMULATE_ORDER: order },
    reject: false,
  });

const reports = (stderr: string): string[] => stderr.split('\n').filter((l) => l.includes('debug check'));

test('abort: a negative tracer ends the run with the CPU build\'s report (program, stencil, line, i, j, k, value)', async () => {
  const debug: Debug = {};
  const dir = project(debug);
  // inputs lie in [1, 2): w = 2.5 fails qvapor's check at every point; both builds visit
  // (0, 0, 0) first (threads in increasing order), so they report the same failure
  const [cpu, gpu] = [await cpuRun(dir, '4,3,2', 2.5), await gpuRun(dir, debug, '4,3,2', 2.5)];
  assert.is(cpu.exitCode, 1, cpu.stderr);
  assert.is(gpu.exitCode, 1, gpu.stderr);
  assert.equal(reports(gpu.stderr), reports(cpu.stderr));
  assert.match(gpu.stderr, /E_RUNTIME: program 'physics': debug check: qvapor is -[\d.e-]+, below -1e-8 at i=0, j=0, k=0 in program physics, stencil physics \(.*m\.py:7\)/);
  // In any thread order, one report of a failing point, and only one.
  const reverse = await gpuRun(dir, debug, '4,3,2', 2.5, 'reverse');
  assert.is(reverse.exitCode, 1, reverse.stderr);
  assert.is(reports(reverse.stderr).length, 1);
  assert.match(reverse.stderr, /qvapor is -[\d.e-]+, below -1e-8 at i=\d, j=\d, k=\d in program physics, stencil physics \(.*m\.py:7\)/);
});

test('log: every NaN is reported as on the CPU and the run goes on', async () => {
  const debug: Debug = { action: 'log', tracers: [], delp: false };
  const dir = project(debug);
  // w = 5 makes t NaN at all 12 points: fewer than the 20 reports a run prints
  const [cpu, gpu] = [await cpuRun(dir, '4,3,1', 5.0), await gpuRun(dir, debug, '4,3,1', 5.0, 'reverse')];
  assert.is(cpu.exitCode, 0, cpu.stderr);
  assert.is(gpu.exitCode, 0, gpu.stderr);
  assert.is(reports(gpu.stderr).length, 12);
  assert.equal(reports(gpu.stderr).sort(), reports(cpu.stderr).sort());
  assert.match(gpu.stderr, /t is NaN at i=\d+, j=\d+, k=\d+ in program physics, stencil physics \(.*m\.py:9\)/);
  assert.not.match(gpu.stderr, 'qvapor is');
});

test('log: at most 20 reports per run, as on the CPU', async () => {
  const debug: Debug = { action: 'log', tracers: [], delp: false };
  const dir = project(debug);
  const gpu = await gpuRun(dir, debug, '4,3,2', 5.0);
  assert.is(gpu.exitCode, 0, gpu.stderr);
  assert.is(reports(gpu.stderr).length, 20);
});

test('a negative delp is checked against 0', async () => {
  const debug: Debug = { tracers: [] };
  const gpu = await gpuRun(project(debug), debug, '4,3,2', 0.9);
  assert.is(gpu.exitCode, 1, gpu.stderr);
  assert.match(gpu.stderr, /delp is -[\d.e-]+, below 0 at i=\d, j=\d, k=\d in program physics, stencil physics/);
});

test('without --debug nothing is checked', async () => {
  const gpu = await gpuRun(project({}), undefined, '4,3,2', 5.0);
  assert.is(gpu.exitCode, 0, gpu.stderr);
  assert.not.match(gpu.stderr, 'debug check');
});

test('a debug build compiles with nvcc (cuda-h100), the checks in its kernels', async () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'orch-cuda-debug-build-'));
  const config = await resolveConfig({ configFile: null, cwd: work, preset: 'cuda-h100', debug: true });
  config.cacheRoot = work;
  const compiler = new Compiler({ ...config, verifyIR: true }, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [MODULE], entry: 'physics', externals: {}, defines: {}, mode: 'build' });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d, { verbose: true })).join('\n'));
  const e = r.entries[0];
  assert.is(e.status, 'built');
  const cu = readdirSync(e.dir!).find((f) => f.endsWith('.cu'));
  assert.ok(cu, 'the entry keeps its .cu');
  const kernels = readFileSync(path.join(e.dir!, cu!), 'utf8');
  assert.is(kernels.match(/orch::cuda::check_failed\(/g)?.length, 5, 'NaN checks of qvapor, delp and t, the tracer check of qvapor and the delp check');
});

test.run();
