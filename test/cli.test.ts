import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import { CASES_DIR, TOOLS_DIR } from './conformanceKit.js';
import * as assert from 'uvu/assert';
import { readNpy } from '../core/runtime/npy.js';

/** End-to-end tests of the `orch` CLI, run as users' scripts run it. */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const orchBin = path.join(repo, 'dist/bin/orch.js');
const casesDir = CASES_DIR;

function tmp(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), `orch-${prefix}-`));
}

async function orch(args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = await execa(process.execPath, [orchBin, ...args], { cwd, env: { GT_CACHE_ROOT: cwd, ...env }, reject: false });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const HEADER = 'from gt4py.cartesian.gtscript import PARALLEL, computation, interval\nfrom ndsl.dsl.typing import Float, FloatField\n';

function stencilModule(name: string, body: string, imports = ''): string {
  return `${HEADER}${imports}\n\ndef ${name}(a: FloatField, b: FloatField, w: Float):\n    with computation(PARALLEL), interval(...):\n${body}\n`;
}

const cli = suite('cli');

cli('orch build reports misses with reasons, then hits', async () => {
  const dir = tmp('build');
  writeFileSync(path.join(dir, 'one.py'), stencilModule('scale', '        b = w * a'));
  const first = await orch(['build', 'one.py', '--json'], dir);
  assert.is(first.code, 0, first.stderr);
  const j1 = JSON.parse(first.stdout);
  assert.is(j1.entries[0].status, 'miss');
  assert.is(j1.entries[0].reason, 'no cache entry yet');
  const second = await orch(['build', 'one.py', '--json'], dir);
  const j2 = JSON.parse(second.stdout);
  assert.is(j2.entries[0].status, 'hit');
  assert.is(j2.entries[0].key, j1.entries[0].key);
  assert.ok(existsSync(path.join(dir, '.gt_cache_A/one/scale', j1.entries[0].key, 'build-info.json')));
  const third = await orch(['build', 'one.py', '--json', '--preset', 'cpu-native'], dir);
  assert.match(JSON.parse(third.stdout).entries[0].reason, 'preset');
});

cli('editing one module rebuilds only it and the modules that import it', async () => {
  const dir = tmp('incremental');
  writeFileSync(path.join(dir, 'consts.py'), 'GAIN = 2.0\n');
  writeFileSync(path.join(dir, 'a.py'), stencilModule('sa', '        b = GAIN * w * a', 'from consts import GAIN\n'));
  writeFileSync(path.join(dir, 'b.py'), stencilModule('sb', '        b = w + a'));
  writeFileSync(path.join(dir, 'c.py'), stencilModule('sc', '        b = consts.GAIN - a', 'import consts\n'));
  const status = async () => {
    const r = await orch(['build', 'a.py', 'b.py', 'c.py', '--json'], dir);
    assert.is(r.code, 0, r.stderr);
    return Object.fromEntries(JSON.parse(r.stdout).entries.map((e: { module: string; status: string }) => [e.module, e.status]));
  };
  assert.equal(await status(), { 'a.py': 'miss', 'b.py': 'miss', 'c.py': 'miss' });
  assert.equal(await status(), { 'a.py': 'hit', 'b.py': 'hit', 'c.py': 'hit' });
  writeFileSync(path.join(dir, 'b.py'), stencilModule('sb', '        b = w - a'));
  assert.equal(await status(), { 'a.py': 'hit', 'b.py': 'miss', 'c.py': 'hit' });
  writeFileSync(path.join(dir, 'consts.py'), 'GAIN = 3.0\n');
  assert.equal(await status(), { 'a.py': 'miss', 'b.py': 'hit', 'c.py': 'miss' });
});

cli('orch run --in/--out writes every field, matching GT4Py', async () => {
  const dir = tmp('run');
  const caseDir = path.join(casesDir, 's04_upwind_flux_x');
  cpSync(caseDir, path.join(dir, 'case'), { recursive: true });
  const spec = JSON.parse(readFileSync(path.join(caseDir, 'case.json'), 'utf8'));
  const ins = Object.keys(spec.fields).flatMap((f) => ['--in', `${f}=${path.join(dir, 'case/in', `${f}.npy`)}`]);
  const out = path.join(dir, 'out');
  const r = await orch(['run', `case/module.py:${spec.entry}`, '--mode', 'build-and-run', '--domain', spec.domain.join(','), '--origin', spec.origin.join(','), '--scalars', JSON.stringify(spec.scalars), '--out', out, '--json', '--repeat', '3', ...ins], dir);
  assert.is(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  for (const k of ['entry', 'mode', 'cache', 'build_s', 'run_s_median', 'run_s_min', 'outputs']) assert.ok(k in report, `--json has ${k}`);
  assert.is(report.outputs.length, Object.keys(spec.fields).length);
  for (const f of spec.compare) {
    const got = readNpy(path.join(out, `${f}.npy`));
    const want = readNpy(path.join(caseDir, 'out', `${f}.npy`));
    for (let n = 0; n < want.data.length; n++) assert.ok(Math.abs(Number(got.data[n]) - Number(want.data[n])) <= 1e-12 * Math.abs(Number(want.data[n])) + 1e-13);
  }
  const again = await orch(['run', `case/module.py:${spec.entry}`, '--mode', 'run', '--domain', spec.domain.join(','), '--origin', spec.origin.join(','), '--scalars', JSON.stringify(spec.scalars), '--json', ...ins], dir);
  assert.is(JSON.parse(again.stdout).cache, 'hit');
});

cli('run mode with no cache entry fails and says why', async () => {
  const dir = tmp('runmiss');
  writeFileSync(path.join(dir, 'm.py'), stencilModule('s', '        b = a'));
  const r = await orch(['run', 'm.py:s', '--mode', 'run', '--shape', '4,4,4', '--scalars', '{"w": 1.0}'], dir);
  assert.is(r.code, 1);
  assert.match(r.stderr, 'E_CACHE_MISS');
  assert.match(r.stderr, 'no cache entry yet');
});

cli('a runtime scalar is never folded: one build serves two values', async () => {
  const dir = tmp('scalar');
  writeFileSync(path.join(dir, 'm.py'), stencilModule('s', '        b = w * a'));
  const run = async (w: number) => {
    const out = path.join(dir, `out${w}`);
    const r = await orch(['run', 'm.py:s', '--mode', 'build-and-run', '--shape', '3,3,2', '--scalars', JSON.stringify({ w }), '--out', out, '--json'], dir);
    assert.is(r.code, 0, r.stderr);
    return { cache: JSON.parse(r.stdout).cache, a: readNpy(path.join(out, 'a.npy')), b: readNpy(path.join(out, 'b.npy')) };
  };
  const one = await run(2);
  const two = await run(5);
  assert.is(one.cache, 'miss');
  assert.is(two.cache, 'hit');
  assert.ok(Math.abs(Number(one.b.data[0]) - 2 * Number(one.a.data[0])) < 1e-12);
  assert.ok(Math.abs(Number(two.b.data[0]) - 5 * Number(two.a.data[0])) < 1e-12);
});

/** Each bad input, the code it must produce, and text the message must contain. */
const BAD: [string, string, string[], string, string?][] = [
  ['syntax error', `${HEADER}def s(a: FloatField):\n    with computation(PARALLEL), interval(...)\n        a = 1.0\n`, [], 'E_SYNTAX'],
  ['list literal', stencilModule('s', '        b = [a, 1.0]'), [], 'E_UNSUPPORTED', 'list'],
  ['dict literal', stencilModule('s', '        b = {1: a}'), [], 'E_UNSUPPORTED', 'dict'],
  ['call of an unknown function', stencilModule('s', '        b = frobnicate(a)'), [], 'E_UNKNOWN_NAME', 'frobnicate'],
  ['call of a non-gtscript function', stencilModule('s', '        b = print(a)'), [], 'E_UNKNOWN_NAME', 'print'],
  ['write at an offset', stencilModule('s', '        b[1, 0, 0] = a'), [], 'E_WRITE_OFFSET', "'b'"],
  ['unknown external', `${HEADER}\ndef s(a: FloatField, b: FloatField, w: Float):\n    from __externals__ import SCALE\n    with computation(PARALLEL), interval(...):\n        b = SCALE * a\n`, [], 'E_EXTERNAL_MISSING', 'SCALE'],
  ['unknown name', stencilModule('s', '        b = ww * a'), [], 'E_UNKNOWN_NAME', "did you mean 'w'"],
];

for (const [what, source, extra, code, text] of BAD) {
  cli(`bad input gives a diagnostic, not a stack trace: ${what}`, async () => {
    const dir = tmp('bad');
    writeFileSync(path.join(dir, 'm.py'), source);
    const r = await orch(['build', 'm.py', ...extra], dir);
    assert.is(r.code, 1, `exit code for ${what}`);
    assert.match(r.stderr, code);
    assert.match(r.stderr, /m\.py:\d+:\d+: error/);
    assert.match(r.stderr, /\n\s+\|\s+\^/, 'code frame with a caret');
    assert.match(r.stderr, 'hint:');
    if (text) assert.match(r.stderr, text);
    assert.not.match(r.stderr, /\n\s+at .*\.js:\d+/, 'no JavaScript stack trace');
  });
}

cli('a missing argument, a bad .npy and a domain that does not fit are diagnostics', async () => {
  const dir = tmp('args');
  // w is read, so it cannot be left out (GT4Py lets a call omit only parameters the stencil never reads)
  writeFileSync(path.join(dir, 'm.py'), stencilModule('s', '        b = a[1, 0, 0] * w'));
  const missing = await orch(['run', 'm.py:s', '--shape', '4,4,4'], dir);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, 'E_ARG_MISSING');
  assert.match(missing.stderr, "'w'");
  writeFileSync(path.join(dir, 'bad.npy'), 'this is not numpy');
  const bad = await orch(['run', 'm.py:s', '--in', 'a=bad.npy', '--shape', '4,4,4', '--scalars', '{"w": 1}'], dir);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, 'E_NPY_FORMAT');
  const big = await orch(['run', 'm.py:s', '--shape', '4,4,4', '--domain', '5,4,4', '--scalars', '{"w": 1}'], dir);
  assert.is(big.code, 1);
  assert.match(big.stderr, 'E_DOMAIN_FIT');
  assert.match(big.stderr, "'a'");
  assert.match(big.stderr, '(4, 4, 4)');
  const extent = await orch(['run', 'm.py:s', '--shape', '4,4,4', '--domain', '4,4,4', '--scalars', '{"w": 1}', '--mode', 'build-and-run'], dir);
  assert.is(extent.code, 1, 'reading a[1, 0, 0] at the last point is outside the array');
  assert.match(extent.stderr, 'E_OUT_OF_BOUNDS');
  assert.match(extent.stderr, "'a'");
  // without --domain, GT4Py's default domain stops one point short along I, where the read fits
  const fits = await orch(['run', 'm.py:s', '--shape', '4,4,4', '--scalars', '{"w": 1}', '--mode', 'build-and-run', '--check'], dir);
  assert.is(fits.code, 0, fits.stderr);
});

cli('usage errors exit with 2', async () => {
  const dir = tmp('usage');
  assert.is((await orch(['frobnicate'], dir)).code, 2);
  assert.is((await orch(['run'], dir)).code, 2);
  writeFileSync(path.join(dir, 'm.py'), stencilModule('s', '        b = a'));
  const r = await orch(['run', 'm.py:s', '--domain', 'x,y'], dir);
  assert.is(r.code, 2);
  assert.match(r.stderr, 'E_USAGE_DOMAIN');
});

cli('an unknown preset or config key suggests the right name', async () => {
  const dir = tmp('preset');
  writeFileSync(path.join(dir, 'm.py'), stencilModule('s', '        b = a'));
  const r = await orch(['build', 'm.py', '--preset', 'cpu-nativ'], dir);
  assert.is(r.code, 1);
  assert.match(r.stderr, "did you mean 'cpu-native'");
  writeFileSync(path.join(dir, 'orch.config.ts'), "export default { modules: ['m.py'], presett: 'cpu' };\n");
  const c = await orch(['build'], dir);
  assert.is(c.code, 1);
  assert.match(c.stderr, "did you mean 'preset'");
});

cli('orch.config.ts selects modules and compiler flags; a compiler failure is a diagnostic', async () => {
  const dir = tmp('config');
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src/m.py'), stencilModule('s', '        b = a'));
  writeFileSync(path.join(dir, 'orch.config.ts'), "export default { modules: ['src/**/*.py'], compiler: { extraFlags: ['-DORCH_TEST_BREAK=1', '-include', 'broken.h'] } };\n");
  writeFileSync(path.join(dir, 'broken.h'), '#error this header is broken on purpose\n');
  const r = await orch(['build', '--json'], dir);
  assert.is(r.code, 1);
  assert.match(r.stderr, 'E_CXX');
  writeFileSync(path.join(dir, 'orch.config.ts'), "export default { modules: ['src/**/*.py'] };\n");
  const ok = await orch(['build', '--json'], dir);
  assert.is(ok.code, 0, ok.stderr);
  assert.is(JSON.parse(ok.stdout).entries[0].module, 'src/m.py');
});

cli('orch info lists entries with their history, and orch clean removes them', async () => {
  const dir = tmp('info');
  writeFileSync(path.join(dir, 'm.py'), stencilModule('s', '        b = a'));
  await orch(['build', 'm.py'], dir);
  await orch(['build', 'm.py'], dir);
  const info = await orch(['info', '--json'], dir);
  const rows = JSON.parse(info.stdout);
  assert.is(rows.length, 1);
  assert.is(rows[0].hits, 1);
  assert.is(rows[0].misses, 1);
  assert.is(rows[0].last_miss_reason, 'no cache entry yet');
  assert.ok(rows[0].memory.arrays.length >= 2);
  await orch(['clean'], dir);
  assert.not.ok(existsSync(path.join(dir, '.gt_cache_A')));
});

cli('run_cases.py drives every tier-1 case through the CLI, both modes', async () => {
  const r = await execa('python3', [path.join(TOOLS_DIR, 'run_cases.py'), repo, casesDir, '--max-tier', '1', '--quiet'], { reject: false, cwd: tmp('cases') });
  assert.is(r.exitCode, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /(\d+)\/\1 case runs pass/);
});

cli.run();
