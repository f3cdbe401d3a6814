import { appendFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * Build modes through the CLI: `--mode python|build|build-and-run|run` (or ORCH_MODE),
 * `orch build` building every requested program past errors, and `run`/`--no-build`
 * failing on a missing or stale entry with the entry and the cause.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const orchBin = path.resolve(here, '../../dist/bin/orch.js');

async function orch(args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = await execa(process.execPath, [orchBin, ...args], { cwd, env: { GT_CACHE_ROOT: cwd, ...env }, reject: false });
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

const PROGRAM = `from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl.dsl.typing import Float, FloatField
from orch import program, stencil

@stencil
def scale(q: FloatField, w: Float):
    with computation(PARALLEL), interval(...):
        q = w * q

@program
def twice(q: FloatField, w: Float):
    scale(q, w)
    scale(q, w)

@program
def thrice(q: FloatField, w: Float):
    twice(q, w)
    scale(q, w)
`;

const m = suite('modes');

m('orch build builds every requested program and does not stop at the first error', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-modes-build-'));
  writeFileSync(path.join(dir, 'good.py'), PROGRAM);
  writeFileSync(path.join(dir, 'bad.py'), PROGRAM.replace('scale(q, w)\n    scale(q, w)', 'scale(q, w)\n    print(w)'));
  writeFileSync(path.join(dir, 'also_good.py'), PROGRAM);
  const r = await orch(['build', 'also_good.py', 'bad.py', 'good.py', '--json'], dir);
  assert.is(r.code, 1, 'an error makes the build fail');
  const report = JSON.parse(r.stdout);
  const status = Object.fromEntries(report.entries.map((e: { module: string; entry: string; status: string }) => [`${e.module}:${e.entry}`, e.status]));
  assert.equal(status, {
    'also_good.py:thrice': 'miss',
    'also_good.py:twice': 'miss',
    'bad.py:thrice': 'error',
    'bad.py:twice': 'error',
    'good.py:thrice': 'miss',
    'good.py:twice': 'miss',
  });
  assert.match(r.stderr, /bad\.py:13:5: error E_UNKNOWN_CALL/);
  const again = await orch(['build', 'good.py:twice', '--json'], dir);
  assert.is(again.code, 0, again.stderr);
  const one = JSON.parse(again.stdout);
  assert.is(one.entries.length, 1, 'file.py:entry builds just that entry');
  assert.is(one.entries[0].status, 'hit');
  assert.ok(existsSync(one.entries[0].binding), 'the report names the generated Python binding');
  assert.equal(one.entries[0].interface.params.map((p: { name: string }) => p.name), ['q', 'w']);
});

m('--mode build builds and exits; run then hits; python interprets; ORCH_MODE sets the default', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-modes-run-'));
  writeFileSync(path.join(dir, 'p.py'), PROGRAM);
  const args = ['run', 'p.py:thrice', '--shape', '4,3,2', '--scalars', '{"w": 2.0}', '--json', '--out', 'out'];
  const missing = await orch(args, dir, { ORCH_MODE: 'run' });
  assert.is(missing.code, 1);
  assert.match(missing.stderr, 'E_CACHE_MISS');
  assert.match(missing.stderr, 'p.py:thrice: no cache entry yet');
  const build = await orch([...args.slice(0, -2)], dir, { ORCH_MODE: 'build' });
  assert.is(build.code, 0, build.stderr);
  const b = JSON.parse(build.stdout);
  assert.is(b.mode, 'build');
  assert.is(b.runs, 0, 'build mode does not run');
  assert.not.ok(existsSync(path.join(dir, 'out')));
  const run = await orch(args, dir, { ORCH_MODE: 'run' });
  assert.is(run.code, 0, run.stderr);
  assert.is(JSON.parse(run.stdout).cache, 'hit');
  const interpreted = await orch([...args, '--mode', 'python'], dir, { ORCH_MODE: 'run' });
  assert.is(JSON.parse(interpreted.stdout).cache, 'none', '--mode wins over ORCH_MODE');
  const bad = await orch(args, dir, { ORCH_MODE: 'fast' });
  assert.is(bad.code, 2);
  assert.match(bad.stderr, 'ORCH_MODE=fast is not a mode');
});

m('run mode and --no-build fail on a stale entry, naming it and the change', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-modes-stale-'));
  writeFileSync(path.join(dir, 'p.py'), PROGRAM);
  const built = await orch(['build', 'p.py'], dir);
  assert.is(built.code, 0, built.stderr);
  assert.is((await orch(['build', 'p.py', '--no-build'], dir)).code, 0, 'a fresh entry is found');
  appendFileSync(path.join(dir, 'p.py'), '\n# edited\n');
  const lookup = await orch(['build', 'p.py', '--no-build', '--json'], dir);
  assert.is(lookup.code, 1);
  const report = JSON.parse(lookup.stdout);
  assert.equal(report.entries.map((e: { status: string }) => e.status), ['missing', 'missing']);
  assert.match(lookup.stderr, 'no usable cache entry for p.py:thrice: p.py changed');
  const run = await orch(['run', 'p.py:twice', '--mode', 'run', '--shape', '2,2,2', '--scalars', '{"w": 1.0}'], dir);
  assert.is(run.code, 1);
  assert.match(run.stderr, 'no usable cache entry for p.py:twice: p.py changed');
  const defined = await orch(['build', 'p.py:twice', '--no-build', '--preset', 'debug'], dir);
  assert.match(defined.stderr, /p\.py:twice: preset(, [a-z ]+)* changed/);
});

m.run();
