import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readNpy } from '../core/runtime/npy.js';

/**
 * Names across files, as a user runs them: fixtures/language/imports is an application
 * (app/entry.py) whose stencil lives in a package on the import path (lib/physics), and
 * reaches its helpers and constants through `from m import f`, `import m as p; p.f`,
 * `from . import m` and `from .m import C`; a constants module picks its values with
 * `os.environ` (as ndsl.constants does with PACE_CONSTANTS), and a helper comes in as an
 * external given by import path. Run through the CLI, interpreted and compiled.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const orchBin = path.join(repo, 'dist/bin/orch.js');
const fixture = path.join(repo, 'fixtures/language/imports');

const EXTERNALS = JSON.stringify({ limiter: { function: 'physics.functions.positive_part' } });
const OFFSET = 35;

function project(config: string | null): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-imports-'));
  cpSync(fixture, dir, { recursive: true });
  if (config !== null) writeFileSync(path.join(dir, 'orch.config.ts'), config);
  return dir;
}

async function run(dir: string, mode: string, out: string, env: Record<string, string> = {}, externals = EXTERNALS) {
  const args = ['run', 'app/entry.py:potential_temperature', '--mode', mode, '--shape', '4,3,2', '--scalars', JSON.stringify({ offset: OFFSET }), '--externals', externals, '--out', out, '--json'];
  if (mode !== 'python') args.push('--check');
  const base: Record<string, string | undefined> = { ...process.env, GT_CACHE_ROOT: dir };
  for (const k of ['PACE_CONSTANTS', 'ORCH_TEST_P_REF', 'PYTHONPATH']) delete base[k];
  const r = await execa(process.execPath, [orchBin, ...args], { cwd: dir, env: { ...base, ...env }, extendEnv: false, reject: false });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr, report: r.exitCode === 0 ? JSON.parse(r.stdout) : undefined };
}

/** theta = max(t * (p_ref / p) ** (rd / cp) - offset, 0) and enthalpy = cp * t, point by point. */
function check(out: string, rd: number, cp: number, pref = 1e5): void {
  const p = readNpy(path.join(out, 'p.npy')).data as Float64Array;
  const t = readNpy(path.join(out, 't.npy')).data as Float64Array;
  const theta = readNpy(path.join(out, 'theta.npy')).data as Float64Array;
  const enthalpy = readNpy(path.join(out, 'enthalpy.npy')).data as Float64Array;
  let clipped = 0;
  for (let n = 0; n < p.length; n++) {
    const want = Math.max(t[n] * (pref / p[n]) ** (rd / cp) - OFFSET, 0);
    if (want === 0) clipped++;
    assert.ok(Math.abs(theta[n] - want) <= 1e-12 * Math.abs(want) + 1e-12, `theta[${n}] = ${theta[n]}, expected ${want}`);
    assert.ok(Math.abs(enthalpy[n] - cp * t[n]) <= 1e-12 * cp * t[n], `enthalpy[${n}]`);
  }
  assert.ok(clipped > 0 && clipped < p.length, 'the limiter external is applied to some points only');
}

const names = suite('names across files');

names('a stencil imported into the entry module runs from its package on pythonPath (orch.config.ts)', async () => {
  const dir = project("export default { pythonPath: ['lib'] };\n");
  const py = await run(dir, 'python', path.join(dir, 'py'));
  assert.is(py.code, 0, py.stderr);
  check(path.join(dir, 'py'), 287.05, 1004.6);
  const built = await run(dir, 'build-and-run', path.join(dir, 'c1'));
  assert.is(built.code, 0, built.stderr);
  assert.is(built.report.cache, 'miss');
  check(path.join(dir, 'c1'), 287.05, 1004.6);
  const again = await run(dir, 'build-and-run', path.join(dir, 'c2'));
  assert.is(again.report.cache, 'hit');
});

names('packages are found on PYTHONPATH too', async () => {
  const dir = project(null);
  const r = await run(dir, 'build-and-run', path.join(dir, 'out'), { PYTHONPATH: 'lib' });
  assert.is(r.code, 0, r.stderr);
  check(path.join(dir, 'out'), 287.05, 1004.6);
  const missing = await run(dir, 'python', path.join(dir, 'out2'));
  assert.is(missing.code, 1, 'without the import path the package is not found');
  assert.match(missing.stderr, 'physics');
  assert.match(missing.stderr, /entry\.py:\d+:\d+/);
});

names('environment variables read by module code select constants and are part of the cache key', async () => {
  const dir = project("export default { pythonPath: ['lib'] };\n");
  const gfs = await run(dir, 'build-and-run', path.join(dir, 'gfs'));
  assert.is(gfs.code, 0, gfs.stderr);
  check(path.join(dir, 'gfs'), 287.05, 1004.6);
  const geos = await run(dir, 'build-and-run', path.join(dir, 'geos'), { PACE_CONSTANTS: 'geos' });
  assert.is(geos.code, 0, geos.stderr);
  assert.is(geos.report.cache, 'miss', 'a changed environment variable is a miss');
  const rd = 8314.47 / 28.965;
  check(path.join(dir, 'geos'), rd, 3.5 * rd);
  const hit = await run(dir, 'build-and-run', path.join(dir, 'geos2'), { PACE_CONSTANTS: 'geos' });
  assert.is(hit.report.cache, 'hit');
  const pref = await run(dir, 'build-and-run', path.join(dir, 'pref'), { PACE_CONSTANTS: 'geos', ORCH_TEST_P_REF: '9.0e4' });
  assert.is(pref.report.cache, 'miss');
  check(path.join(dir, 'pref'), rd, 3.5 * rd, 9e4);
  const lookup = await run(dir, 'run', path.join(dir, 'none'), { PACE_CONSTANTS: 'UFS' });
  assert.is(lookup.code, 1);
  assert.match(lookup.stderr, 'environment variables ORCH_TEST_P_REF, PACE_CONSTANTS changed');
  const ufs = await run(dir, 'build-and-run', path.join(dir, 'ufs'), { PACE_CONSTANTS: 'UFS' });
  assert.is(ufs.code, 0, ufs.stderr);
  check(path.join(dir, 'ufs'), 287.0, 1004.0);
  const unknown = await run(dir, 'python', path.join(dir, 'x'), { PACE_CONSTANTS: 'NOPE' });
  assert.is(unknown.code, 1, 'an unknown constants version raises in the module, at compile time');
  assert.match(unknown.stderr, 'E_MODULE_RAISE');
  assert.match(unknown.stderr, /constants\.py:18:5/);
});

names('an external helper given by import path must name a @gtscript.function', async () => {
  const dir = project("export default { pythonPath: ['lib'] };\n");
  const bad = await run(dir, 'python', path.join(dir, 'o'), {}, JSON.stringify({ limiter: { function: 'physics.functions.no_such' } }));
  assert.is(bad.code, 1);
  assert.match(bad.stderr, 'E_EXTERNAL_FUNCTION');
  assert.match(bad.stderr, "'no_such' in module 'physics.functions' is not defined");
  assert.match(bad.stderr, /thermo\.py:9:\d+/);
  const other = await run(dir, 'python', path.join(dir, 'o2'), {}, JSON.stringify({ limiter: { function: 'physics.functions.identity' } }));
  assert.is(other.code, 0, other.stderr);
});

names.run();
