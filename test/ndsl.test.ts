import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * NDSL components orchestrated by orch (python/orch/ndsl), driven as a model driver drives
 * them: `orch.ndsl.install()`, then components built on the NDSL test double
 * (test/python/ndsl_double) and called with Quantities; FV3_DACEMODE picks the mode.
 * Fixtures and drivers: test/python/ndsl_components.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const dir = path.join(repo, 'test/python/ndsl_components');

async function drive(fixture: string, out: string, cwd: string, env: Record<string, string>) {
  const r = await execa('python3', [path.join(dir, 'drive.py'), fixture, out], {
    cwd,
    reject: false,
    env: { PYTHONPATH: [path.join(repo, 'python'), path.join(repo, 'test/python/ndsl_double')].join(path.delimiter), GT_CACHE_ROOT: cwd, ORCH_MODE: '', FV3_DACEMODE: '', ...env },
  });
  const last = String(r.stdout).trim().split('\n').pop() ?? '';
  let report: Record<string, unknown> = {};
  try {
    report = JSON.parse(last) as Record<string, unknown>;
  } catch {
    report = {};
  }
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr), report };
}

async function same(reference: string, other: string) {
  const r = await execa('python3', [path.join(dir, 'compare.py'), reference, other], { reject: false });
  return { ok: r.exitCode === 0, text: `${r.stdout}${r.stderr}` };
}

const ndsl = suite('NDSL components');

ndsl('every fixture: Python mode, then Build (a bad component among them: all others still built, a summary), Run in a second process and BuildAndRun; compiled == Python mode', async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'orch-ndsl-all-'));
  const py = await drive('all', path.join(cwd, 'python.npz'), cwd, { FV3_DACEMODE: 'Python' });
  assert.is(py.code, 0, py.stderr);
  assert.is(py.report.mode, 'python');
  assert.is(py.report['d_sw.halo_updates'], 10);
  assert.equal(py.report['plain.log'], [0, 1, 2, 0, 1, 2]);

  const build = await drive('all', path.join(cwd, 'build.npz'), cwd, { FV3_DACEMODE: 'Build', BAD_CASE: 'method' });
  assert.is(build.code, 1, 'an error in Build mode is exit status 1');
  assert.match(build.stderr, 'orch (FV3_DACEMODE=Build): 6 orchestrated component(s), 1 error(s)');
  for (const c of ['RayleighDamping', 'DelnFlux', 'DGridShallowWater', 'Condensation', 'Nudging']) assert.match(build.stderr, new RegExp(`built +${c}\\.__call__`));
  assert.match(build.stderr, /error +PlainMethod\.__call__ \(.*bad_components\.py\)/);
  assert.match(build.stderr, /bad_components\.py:49:9: error E_CLOSURE_TYPE: 'self\._twice' \(Python type method\): method '_twice' is neither orchestrated nor a callback/);
  assert.is(build.report['d_sw.halo_updates'], 0, 'Build runs nothing');

  for (const mode of ['Run', 'BuildAndRun']) {
    const r = await drive('all', path.join(cwd, `${mode}.npz`), cwd, { FV3_DACEMODE: mode });
    assert.is(r.code, 0, `${mode}:\n${r.stderr}`);
    assert.is(r.report['d_sw.halo_updates'], 10, `${mode}: the halo-update callback ran between the stencils`);
    assert.equal(r.report['plain.log'], [0, 1, 2, 0, 1, 2]);
    const cmp = await same(path.join(cwd, 'python.npz'), path.join(cwd, `${mode}.npz`));
    assert.ok(cmp.ok, `${mode} differs from Python mode: ${cmp.text}`);
  }
  // a second process with the same code and configuration: every component a cache hit
  const info = await execa(process.execPath, [path.join(repo, 'dist/bin/orch.js'), 'info', path.join(dir, 'd_sw.py')], { cwd, env: { GT_CACHE_ROOT: cwd } });
  assert.match(String(info.stdout), /history: 2 hit\(s\), 1 miss\(es\)/);
  assert.match(String(info.stdout), 'closure of DGridShallowWater.__call__:');
  assert.match(String(info.stdout), 'self._column_namelist["damp_w"]: runtime float64 (parameter self__column_namelist_damp_w)');
  assert.match(String(info.stdout), 'self._column_namelist["nord"]: compile-time 2');
  assert.match(String(info.stdout), 'self._grid_type: compile-time GridType.CUBED');
  assert.match(String(info.stdout), 'self._halo.update: callback HaloUpdater.update');
  assert.match(String(info.stdout), 'self.grid_data.rdx: array float64 IJ');
});

ndsl('Run never builds: a missing entry, then a changed int configuration, are errors naming the component and the cause; a changed float is the same library (da_min)', async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'orch-ndsl-run-'));
  const missing = await drive('ray', path.join(cwd, 'x.npz'), cwd, { FV3_DACEMODE: 'Run' });
  assert.is.not(missing.code, 0);
  assert.match(missing.stderr, /CacheMissError: orchestrated RayleighDamping\.__call__ \(.*ray_fast\.py\): no usable cache entry .*: no cache entry yet/);
  assert.match(missing.stderr, 'build it first (FV3_DACEMODE=Build or BuildAndRun)');
  const built = await drive('ray', path.join(cwd, 'built.npz'), cwd, { FV3_DACEMODE: 'BuildAndRun' });
  assert.is(built.code, 0, built.stderr);
  const changed = await drive('ray', path.join(cwd, 'x.npz'), cwd, { FV3_DACEMODE: 'Run', RAY_N_SPONGE: '5' });
  assert.is.not(changed.code, 0);
  assert.match(changed.stderr, /RayleighDamping\.__call__ .*closure \(self\.items\._damp\.domain: \[8,7,4\] -> \[8,7,5\]\) changed/);
  // another float attribute (another rank's cutoff): no rebuild, and the value is the new one
  const other = await drive('ray', path.join(cwd, 'other.npz'), cwd, { FV3_DACEMODE: 'Run', RAY_RF_CUTOFF: '450.0' });
  assert.is(other.code, 0, other.stderr);
  const reference = await drive('ray', path.join(cwd, 'other-py.npz'), cwd, { RAY_RF_CUTOFF: '450.0' });
  assert.is(reference.code, 0, reference.stderr);
  assert.ok((await same(path.join(cwd, 'other-py.npz'), path.join(cwd, 'other.npz'))).ok, 'the run with the other float equals Python mode with it');
  assert.not.ok((await same(path.join(cwd, 'built.npz'), path.join(cwd, 'other.npz'))).ok, 'the float changed the result');
});

ndsl('layouts: each rank of a 6x6 tile builds and loads its code path, two ranks on C share one library, and the region externals are NDSL axis_offsets (compiled == Python mode)', async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'orch-ndsl-layout-'));
  const layout = { ORCH_LAYOUT: '6x6', ORCH_DOMAIN: '5,4,3' };
  const py: Record<string, string> = {};
  for (const rank of ['0', '17', '14', '7']) {
    const p = await drive('edges', path.join(cwd, `py${rank}.npz`), cwd, { ...layout, ORCH_RANK: rank });
    assert.is(p.code, 0, p.stderr);
    const c = await drive('edges', path.join(cwd, `bar${rank}.npz`), cwd, { ...layout, ORCH_RANK: rank, FV3_DACEMODE: 'BuildAndRun' });
    assert.is(c.code, 0, c.stderr);
    const cmp = await same(path.join(cwd, `py${rank}.npz`), path.join(cwd, `bar${rank}.npz`));
    assert.ok(cmp.ok, `rank ${rank}: ${cmp.text}`);
    py[rank] = path.join(cwd, `py${rank}.npz`);
  }
  // the ranks' edges differ (the check is not vacuous) ...
  assert.not.ok((await same(py['0'], py['14'])).ok);
  assert.not.ok((await same(py['17'], py['14'])).ok);
  // ... and rank 7 (C, like 14) loaded the library rank 14 built
  const info = await execa(process.execPath, [path.join(repo, 'dist/bin/orch.js'), 'info', path.join(dir, 'edges.py'), '--codepath', 'C'], { cwd, env: { GT_CACHE_ROOT: cwd } });
  assert.match(String(info.stdout), /history: 1 hit\(s\), 1 miss\(es\)/);
  for (const cp of ['BL', 'R']) {
    const other = await execa(process.execPath, [path.join(repo, 'dist/bin/orch.js'), 'info', path.join(dir, 'edges.py'), '--codepath', cp], { cwd, env: { GT_CACHE_ROOT: cwd } });
    assert.match(String(other.stdout), /history: 0 hit\(s\), 1 miss\(es\)/, cp);
  }
});

ndsl('unsupported constructs are located errors with a hint: a list built at run time, an object orch cannot describe, a plain method', async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'orch-ndsl-bad-'));
  const cases: [string, RegExp][] = [
    ['list', /bad_components\.py:25:18: error E_RUNTIME_LIST: a list is built at run time here[^]*> 25 \|         for q in \[u, v\]:\n +\| +\^[^]*hint: call the stencil once per field/],
    ['opaque', /bad_components\.py:36:18: error E_CLOSURE_TYPE: 'self\._factor' \(Python type partial\): orch cannot describe this object[^]*\^[^]*hint: keep arrays, Quantities/],
    ['method', /bad_components\.py:49:9: error E_CLOSURE_TYPE: 'self\._twice' \(Python type method\)[^]*\^[^]*hint: orchestrate it \(orchestrate\(obj=self, config=\.\.\., method_to_orchestrate='_twice'\)\) or mark it @dace_inhibitor/],
  ];
  for (const [name, expected] of cases) {
    const r = await drive('bad', path.join(cwd, 'x.npz'), cwd, { FV3_DACEMODE: 'BuildAndRun', BAD_CASE: name });
    assert.is.not(r.code, 0, name);
    assert.match(r.stderr, expected, `${name}:\n${r.stderr}`);
    assert.not.match(r.stderr, 'E_PLUGIN');
  }
});

ndsl('modes: FV3_DACEMODE values, ORCH_MODE first, an invalid value lists the valid ones; install() patches NDSL, and orch.ndsl works without it', async () => {
  const script = `
import json, os, sys
import orch, orch.ndsl, orch.modes
out = {"mode": orch.mode()}
out["patched"] = orch.ndsl.install()
if out["patched"]:
    import ndsl, ndsl.dsl.dace.orchestration as o
    out["same"] = [ndsl.orchestrate is orch.ndsl.orchestrate, o.orchestrate is orch.ndsl.orchestrate, o.orchestrate_function is orch.ndsl.orchestrate_function, o.dace_inhibitor is orch.ndsl.dace_inhibitor]
print(json.dumps(out))`;
  const run = async (env: Record<string, string>, withDouble = true) => {
    const r = await execa('python3', ['-c', script], {
      reject: false,
      env: { PYTHONPATH: [path.join(repo, 'python'), ...(withDouble ? [path.join(repo, 'test/python/ndsl_double')] : [])].join(path.delimiter), ORCH_MODE: '', FV3_DACEMODE: '', ...env },
    });
    return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
  };
  const expected: [Record<string, string>, string][] = [
    [{}, 'python'],
    [{ FV3_DACEMODE: 'Python' }, 'python'],
    [{ FV3_DACEMODE: 'Build' }, 'build'],
    [{ FV3_DACEMODE: 'BuildAndRun' }, 'build-and-run'],
    [{ FV3_DACEMODE: 'Run' }, 'run'],
    [{ FV3_DACEMODE: 'Run', ORCH_MODE: 'python' }, 'python'],
  ];
  for (const [env, mode] of expected) {
    const r = await run(env);
    assert.is(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim());
    assert.is(out.mode, mode, JSON.stringify(env));
    assert.equal(out.patched, ['ndsl', 'ndsl.dsl.dace.orchestration', 'ndsl.dsl.dace']);
    assert.equal(out.same, [true, true, true, true]);
  }
  const bad = await run({ FV3_DACEMODE: 'Compile' });
  assert.is.not(bad.code, 0);
  assert.match(bad.stderr, "FV3_DACEMODE='Compile' is not an orchestration mode; use one of Python, Build, BuildAndRun, Run");
  // no NDSL installed: orch's stand-in ndsl is not patched, orch.ndsl's decorators still work
  const alone = await run({}, false);
  assert.is(alone.code, 0, alone.stderr);
  assert.equal(JSON.parse(alone.stdout.trim()).patched, []);
  // without install(), the NDSL double refuses to orchestrate (it has no DaCe): the switch is what makes orch compile
  const unpatched = await execa('python3', ['-c', `
import orch, sys
sys.path.insert(0, ${JSON.stringify(dir)})
import fixtures_ray
fixtures_ray.run(1)`], { reject: false, env: { PYTHONPATH: [path.join(repo, 'python'), path.join(repo, 'test/python/ndsl_double')].join(path.delimiter), FV3_DACEMODE: 'BuildAndRun', ORCH_MODE: '' } });
  assert.is.not(unpatched.exitCode, 0);
  assert.match(String(unpatched.stderr), 'the NDSL test double has no DaCe: call orch.ndsl.install()');
});

ndsl.run();
