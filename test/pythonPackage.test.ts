import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import { CASES_DIR } from './conformanceKit.js';
import * as assert from 'uvu/assert';

/**
 * The `orch` Python package (python/orch), driven as users drive it: python3 scripts that
 * import orch and their program modules, with ORCH_MODE selecting plain Python (orch's
 * interpreter here, GT4Py not being installed), build-and-run or run.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const scripts = path.join(repo, 'test/python');
const casesDir = CASES_DIR;
const programCases = existsSync(casesDir) ? readdirSync(casesDir).filter((c) => c.startsWith('p') && existsSync(path.join(casesDir, c, 'case.json'))).sort() : [];

async function python(script: string, args: string[], mode: string, cwd: string, env: Record<string, string> = {}) {
  const r = await execa('python3', [path.join(scripts, script), ...args], {
    cwd,
    reject: false,
    env: { PYTHONPATH: path.join(repo, 'python'), ORCH_MODE: mode, GT_CACHE_ROOT: cwd, ...env },
  });
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

const py = suite('python package');
/** One cache for the tests around fixtures/programs/substeps.py, so it is built once. */
const substepsCache = mkdtempSync(path.join(os.tmpdir(), 'orch-py-substeps-'));

py('every program case of the conformance kit passes through the package, compiled and in Python mode', async () => {
  assert.ok(programCases.length >= 8, 'the conformance kit has its program cases');
  const cache = mkdtempSync(path.join(os.tmpdir(), 'orch-py-cases-'));
  for (const mode of ['build-and-run', 'run', 'python']) {
    const runs = await Promise.all(programCases.map((c) => python('run_conformance_case.py', [path.join(casesDir, c)], mode, cache)));
    runs.forEach((r, n) => {
      assert.is(r.code, 0, `${programCases[n]} (${mode}):\n${r.stdout}\n${r.stderr}`);
      const report = JSON.parse(r.stdout.trim().split('\n').pop()!);
      assert.ok(report.ok, `${programCases[n]} (${mode}): ${report.problems}`);
      assert.is(report.mode, mode);
    });
  }
});

py('a substep loop of 8 stencils with a nested program, callbacks and temporaries runs from Python, compiled = Python mode', async () => {
  const dir = substepsCache;
  const reports: Record<string, { calls: [number, number][] }> = {};
  for (const mode of ['python', 'build-and-run', 'run']) {
    const r = await python('run_substeps.py', [path.join(dir, `${mode}.npz`)], mode, dir);
    assert.is(r.code, 0, `${mode}:\n${r.stderr}`);
    reports[mode] = JSON.parse(r.stdout.trim());
  }
  // the host callback ran as Python, once per substep, in order, in every mode
  assert.equal(reports.python.calls, [[0, 100], [1, 100], [2, 100]]);
  assert.equal(reports['build-and-run'].calls, reports.python.calls);
  assert.equal(reports.run.calls, reports.python.calls);
  const cmp = await execa('python3', ['-c', `
import numpy as np, sys
a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); c = np.load(sys.argv[3])
for k in a:
    assert np.allclose(a[k], b[k], rtol=1e-12, atol=1e-14), k
    assert np.array_equal(b[k], c[k]), k
assert not np.allclose(a["q"], 0.0)
print("same")`, path.join(dir, 'python.npz'), path.join(dir, 'build-and-run.npz'), path.join(dir, 'run.npz')], { reject: false });
  assert.is(cmp.exitCode, 0, String(cmp.stderr));
});

py('a program class runs from Python: constructor arguments specialize the build', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-py-class-'));
  for (const mode of ['python', 'build-and-run']) {
    const r = await python('run_smoother.py', [path.join(dir, `${mode}.npy`)], mode, dir);
    assert.is(r.code, 0, `${mode}:\n${r.stderr}`);
  }
  const cmp = await execa('python3', ['-c', 'import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); assert np.allclose(a, b, rtol=1e-12, atol=1e-14); print(float(abs(a - b).max()))', path.join(dir, 'python.npy'), path.join(dir, 'build-and-run.npy')], { reject: false });
  assert.is(cmp.exitCode, 0, String(cmp.stderr));
});

py('the binding checks arguments, rebinds new arrays, and carries callback exceptions', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-py-binding-'));
  const r = await python('check_binding.py', [dir], 'build-and-run', dir);
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.is(r.stdout.trim(), 'ok');

  // the same direct stencil call in Python mode (orch's interpreter here)
  const direct = await execa('python3', ['-c', `
import sys, numpy as np, orch
sys.path.insert(0, sys.argv[1])
import checked
x = np.arange(60, dtype=np.float64).reshape(5, 4, 3); y = np.zeros((5, 4, 3))
checked.axpy(x, y, 2.0, origin=(1, 0, 0), domain=(3, 4, 3))
want = np.zeros((5, 4, 3)); want[1:4] = 2.0 * x[1:4]
assert np.array_equal(y, want)
print(orch.mode())`, dir], { cwd: dir, env: { PYTHONPATH: path.join(repo, 'python'), GT_CACHE_ROOT: dir, ORCH_MODE: 'python' }, reject: false });
  assert.is(direct.exitCode, 0, String(direct.stderr));
  assert.is(String(direct.stdout).trim(), 'python');

  // run mode loads what was built; after an edit it fails, naming the entry and the cause
  const call = ['-c', 'import sys; sys.path.insert(0, sys.argv[1]); import numpy as np, orch, checked; checked.prog(np.ones((3, 3, 2)), np.zeros((3, 3, 2)), np.zeros((3, 3)), 1.0)', dir];
  const env = { PYTHONPATH: path.join(repo, 'python'), GT_CACHE_ROOT: dir, ORCH_MODE: 'run' };
  const hit = await execa('python3', call, { cwd: dir, env, reject: false });
  assert.is(hit.exitCode, 0, String(hit.stderr));
  appendFileSync(path.join(dir, 'checked.py'), '\n# edited\n');
  const stale = await execa('python3', call, { cwd: dir, env, reject: false });
  assert.is(stale.exitCode, 1);
  assert.match(String(stale.stderr), 'CacheMissError');
  assert.match(String(stale.stderr), 'checked.py:prog');
  assert.match(String(stale.stderr), 'checked.py changed');
});

py('ORCH_MODE=build builds without running, and an unknown mode is a clear error', async () => {
  const dir = substepsCache;
  const code = `
import sys, numpy as np, orch
sys.path.insert(0, sys.argv[1])
import substeps
q = np.ones((8, 8, 3)); u = np.ones((8, 8, 3)); v = np.ones((8, 8, 3)); t = np.zeros((8, 8))
substeps.dyn_step(q, u, v, t, 10.0, 1000.0, 1.0, 0.0)
print(float(t.sum()))`;
  const env = { PYTHONPATH: path.join(repo, 'python'), GT_CACHE_ROOT: dir };
  const build = await execa('python3', ['-c', code, path.join(repo, 'fixtures/programs')], { cwd: dir, env: { ...env, ORCH_MODE: 'build' }, reject: false });
  assert.is(build.exitCode, 0, String(build.stderr));
  assert.is(String(build.stdout).trim(), '0.0', 'built, not run');
  assert.ok(readdirSync(path.join(dir, '.gt_cache_A')).length > 0, 'the library is in the cache');
  const run = await execa('python3', ['-c', code, path.join(repo, 'fixtures/programs')], { cwd: dir, env: { ...env, ORCH_MODE: 'run' }, reject: false });
  assert.is(run.exitCode, 0, String(run.stderr));
  assert.is(String(run.stdout).trim(), String(8 * 8 * 3 * 1.0).replace(/^(\d+)$/, '$1.0'));
  const bad = await execa('python3', ['-c', code, path.join(repo, 'fixtures/programs')], { cwd: dir, env: { ...env, ORCH_MODE: 'fast' }, reject: false });
  assert.is(bad.exitCode, 1);
  assert.match(String(bad.stderr), "ORCH_MODE='fast' is not a mode orch knows");
});

py('the generated binding is plain ctypes: it loads without the orch package', async () => {
  const dir = substepsCache;
  const bindings: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d, { withFileTypes: true })) {
      if (n.isDirectory()) walk(path.join(d, n.name));
      else if (n.name === 'binding.py') bindings.push(path.join(d, n.name));
    }
  };
  walk(path.join(dir, '.gt_cache_A'));
  const binding = bindings.find((b) => b.includes(`${path.sep}dyn_step${path.sep}`))!;
  assert.ok(binding, 'dyn_step has a binding');
  assert.not.match(readFileSync(binding, 'utf8'), /^\s*(import|from) orch/m);
  const code = `
import importlib.util, json, math, sys, numpy as np
spec = importlib.util.spec_from_file_location("b", sys.argv[1]); b = importlib.util.module_from_spec(spec); spec.loader.exec_module(b)
lib = [c for c in json.loads(open(sys.argv[1].replace("binding.py", "build-info.json")).read())["checksums"] if c.endswith(".so")][0]
seen = []
run = b.Program(sys.argv[1].replace("binding.py", lib), callbacks={"substep_count": lambda umax, dx, dt: 2, "report": lambda s, dt: seen.append(s)})
q = np.ones((8, 8, 3)); u = np.ones((8, 8, 3)); v = np.ones((8, 8, 3)); t = np.zeros((8, 8))
run(q, u, v, t, 10.0, 1000.0, 1.0, 0.0)
print(seen, b.Program.params)`;
  const s = await execa('python3', ['-c', code, binding], { reject: false, env: { PYTHONPATH: '' } });
  assert.is(s.exitCode, 0, String(s.stderr));
  assert.match(String(s.stdout), "[0, 1] ('q', 'u', 'v', 'total', 'dt', 'dx', 'umax', 'nu')");
});

py.run();
