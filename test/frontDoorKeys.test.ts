import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ORCH_BIN, REPO, STENCIL_HEADER } from './TempProject.js';

/**
 * Defaults of compile-time arguments are part of the key the same way from every front
 * door: `orch build` of a program left to its defaults and the Python package calling it
 * (which applies the defaults before it asks) name the same cache entry, so each front
 * door finds what the other built.
 */

const doors = suite('front door keys');
const ENTRIES = ['smoother.py:smoother_function', 'smoother.py:Smoother'];
// calls both programs with their defaults; ORCH_MODE=run fails unless both are cache hits
const CALL = `
import numpy as np
import orch
import smoother
n = np.arange(7 * 6 * 3, dtype=np.float64)
q = np.sin(0.37 * n).reshape(7, 6, 3)
edge = np.cos(0.11 * n).reshape(7, 6, 3)
smoother.smoother_function(q, edge, 0.05)
smoother.Smoother()(q, edge, 0.05)
print("called")
`;

function project(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-doors-'));
  copyFileSync(path.join(REPO, 'fixtures/programs/smoother.py'), path.join(dir, 'smoother.py'));
  return dir;
}

/** Both front doors see the same import path (it is part of the key). */
function env(dir: string) {
  return { PYTHONPATH: `${path.join(REPO, 'python')}:${dir}`, GT_CACHE_ROOT: dir };
}

async function cli(dir: string, args: string[]) {
  const r = await execa(process.execPath, [ORCH_BIN, 'build', ...ENTRIES, '--json', ...args], { cwd: dir, reject: false, env: { ...env(dir), NO_COLOR: '1' } });
  const report = JSON.parse(String(r.stdout)) as { entries: { entry: string; status: string; key?: string }[] };
  return { code: r.exitCode, stderr: String(r.stderr), status: Object.fromEntries(report.entries.map((e) => [e.entry, e.status])) };
}

async function python(dir: string, mode: string) {
  const r = await execa('python3', ['-c', CALL], { cwd: dir, reject: false, env: { ...env(dir), ORCH_MODE: mode } });
  return { code: r.exitCode, out: `${r.stdout}\n${r.stderr}` };
}

doors('built by orch build with the defaults, then called from Python in run mode: both are hits', async () => {
  const dir = project();
  const built = await cli(dir, []);
  assert.is(built.code, 0, built.stderr);
  assert.equal(built.status, { smoother_function: 'miss', Smoother: 'miss' });
  const run = await python(dir, 'run');
  assert.is(run.code, 0, run.out);
  assert.match(run.out, 'called');
});

doors('built from Python, then looked up by orch build --no-build: both are hits', async () => {
  const dir = project();
  const built = await python(dir, 'build-and-run');
  assert.is(built.code, 0, built.out);
  const lookup = await cli(dir, ['--no-build']);
  assert.is(lookup.code, 0, lookup.stderr);
  assert.equal(lookup.status, { smoother_function: 'hit', Smoother: 'hit' });
  // --define of a default value names the same entry
  const explicit = await cli(dir, ['--no-build', '--define', 'n_iter=3']);
  assert.is(explicit.code, 0, explicit.stderr);
});

doors('a default taken from an imported constant: editing the import rebuilds with the new default', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-doors-'));
  writeFileSync(path.join(dir, 'consts.py'), 'N = 2\n');
  writeFileSync(
    path.join(dir, 'm.py'),
    `${STENCIL_HEADER}from orch import compiletime, program, stencil\nfrom consts import N\n\n\n@stencil\ndef bump(q: FloatField):\n    with computation(PARALLEL), interval(...):\n        q = q + 1.0\n\n\n@program\ndef repeat(q: FloatField, n: compiletime(int) = N):\n    for i in range(n):\n        bump(q)\n`,
  );
  const build = async () => {
    const r = await execa(process.execPath, [ORCH_BIN, 'build', 'm.py:repeat', '--json'], { cwd: dir, reject: false, env: { GT_CACHE_ROOT: dir, NO_COLOR: '1' } });
    assert.is(r.exitCode, 0, String(r.stderr));
    const e = (JSON.parse(String(r.stdout)) as { entries: { status: string; dir: string }[] }).entries[0];
    return { status: e.status, defines: (JSON.parse(readFileSync(path.join(e.dir, 'build-info.json'), 'utf8')) as { inputs: { defines: unknown } }).inputs.defines };
  };
  assert.equal(await build(), { status: 'miss', defines: { n: 2 } });
  assert.equal(await build(), { status: 'hit', defines: { n: 2 } });
  writeFileSync(path.join(dir, 'consts.py'), 'N = 3\n');
  assert.equal(await build(), { status: 'miss', defines: { n: 3 } });
});

doors.run();
