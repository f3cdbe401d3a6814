import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * A cache hit must be the same computation: modules are identified by their absolute
 * path, and the way each import was resolved is part of what a hit checks (issue 12,
 * items 1 and 2), through the CLI and through the Python package.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const orchBin = path.resolve(here, '../bin/orch.js');
const HEADER = 'from gt4py.cartesian.gtscript import PARALLEL, computation, interval\nfrom ndsl.dsl.typing import FloatField\n';

function stencil(factor: string, extra = ''): string {
  return `${HEADER}${extra}\n\ndef st(q: FloatField, out: FloatField):\n    with computation(PARALLEL), interval(...):\n        out = q * ${factor}\n`;
}

function orch(args: string[], cwd: string, env: Record<string, string>) {
  return execa(process.execPath, [orchBin, ...args], { cwd, env, reject: false });
}

function lastJson(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

const id = suite('cache identity');

id('two projects with the same relative module path under one GT_CACHE_ROOT never share a library (CLI)', async () => {
  const top = mkdtempSync(path.join(os.tmpdir(), 'orch-ident-'));
  const env = { GT_CACHE_ROOT: path.join(top, 'cache') };
  for (const [p, f] of [['p1', '2.0'], ['p2', '3.0']]) {
    mkdirSync(path.join(top, p));
    writeFileSync(path.join(top, p, 'mod.py'), stencil(f));
  }
  const b1 = await orch(['build', 'mod.py'], path.join(top, 'p1'), env);
  assert.is(b1.exitCode, 0, b1.stderr);
  const run = await orch(['run', 'mod.py:st', '--mode', 'run', '--shape', '2,2,1'], path.join(top, 'p2'), env);
  assert.is(run.exitCode, 1, 'p2 was never built: run mode must miss');
  assert.match(run.stderr, 'E_CACHE_MISS');
  assert.match(run.stderr, `module path (built from ${path.join(top, 'p1', 'mod.py')}) changed`);
  const checked = await orch(['run', 'mod.py:st', '--mode', 'build-and-run', '--shape', '2,2,1', '--check', '--json'], path.join(top, 'p2'), env);
  assert.is(checked.exitCode, 0, checked.stderr);
  const report = lastJson(checked.stdout);
  assert.is(report.cache, 'miss');
  assert.not.match(checked.stdout + checked.stderr, 'MISMATCH');
});

id('a module outside the project root does not collide with the same path inside it', async () => {
  const top = mkdtempSync(path.join(os.tmpdir(), 'orch-ident-out-'));
  const project = path.join(top, 'proj');
  const outside = path.join(top, 'ext', 'mod.py');
  mkdirSync(path.dirname(outside), { recursive: true });
  writeFileSync(outside, stencil('2.0'));
  // the relative path orch used to give the outside module, recreated inside the project
  const inside = path.join(project, outside.replace(/^\/+/, ''));
  mkdirSync(path.dirname(inside), { recursive: true });
  writeFileSync(inside, stencil('3.0'));
  const env = { GT_CACHE_ROOT: path.join(top, 'cache') };
  const b1 = await orch(['build', outside], project, env);
  assert.is(b1.exitCode, 0, b1.stderr);
  const r = await orch(['run', `${path.relative(project, inside)}:st`, '--mode', 'build-and-run', '--shape', '2,2,1', '--check', '--json'], project, env);
  assert.is(r.exitCode, 0, r.stderr);
  assert.is(lastJson(r.stdout).cache, 'miss');
});

id('two projects under one GT_CACHE_ROOT never share a library (Python package)', async () => {
  const top = mkdtempSync(path.join(os.tmpdir(), 'orch-ident-py-'));
  const script = 'import sys\nimport numpy as np\nimport orch\nimport mod\nq = np.ones((2, 2, 1))\nout = np.zeros((2, 2, 1))\nmod.st(q, out)\nprint(float(out[0, 0, 0]))\n';
  const results: string[] = [];
  for (const [p, f] of [['p1', '2.0'], ['p2', '3.0']]) {
    const dir = path.join(top, p);
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'mod.py'), `import orch\n${stencil(f).replace('\n\ndef st', '\n\n@orch.stencil\ndef st')}`);
    writeFileSync(path.join(dir, 'main.py'), script);
    const r = await execa('python3', ['main.py'], { cwd: dir, reject: false, env: { PYTHONPATH: path.join(repo, 'python'), ORCH_MODE: 'build-and-run', GT_CACHE_ROOT: path.join(top, 'cache') } });
    assert.is(r.exitCode, 0, r.stderr);
    results.push(String(r.stdout).trim());
  }
  assert.equal(results, ['2.0', '3.0']);
});

id('a module that appears earlier on the import path than the one built from invalidates the entry', async () => {
  const top = mkdtempSync(path.join(os.tmpdir(), 'orch-ident-shadow-'));
  const dirA = path.join(top, 'dirA');
  const project = path.join(top, 'proj');
  mkdirSync(dirA);
  mkdirSync(project);
  writeFileSync(path.join(dirA, 'consts.py'), 'C = 1.0\n');
  writeFileSync(path.join(project, 'mod.py'), stencil('C', 'from consts import C\n'));
  const env = { GT_CACHE_ROOT: path.join(top, 'cache'), PYTHONPATH: dirA };
  const args = ['run', 'mod.py:st', '--mode', 'build-and-run', '--shape', '2,2,1', '--check', '--json'];
  const first = await orch(args, project, env);
  assert.is(first.exitCode, 0, first.stderr);
  assert.is(lastJson(first.stdout).cache, 'miss');
  // Python prefers the module's own folder to PYTHONPATH
  writeFileSync(path.join(project, 'consts.py'), 'C = 5.0\n');
  const second = await orch(args, project, env);
  assert.is(second.exitCode, 0, second.stderr);
  const report = lastJson(second.stdout);
  assert.is(report.cache, 'miss');
  assert.match(String(report.reason), `${path.join(project, 'consts.py')} now shadows an import`);
  const third = await orch(args, project, env);
  assert.is(lastJson(third.stdout).cache, 'hit', 'the rebuilt entry is reused');
});

id.run();
