import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveConfig } from '../cli/toolset.js';
import type { Compiler } from '../core/Compiler.js';
import type { OrchPlugin } from '../core/config/types.js';
import { launches } from '../core/ir/visit.js';
import { PassPlugin } from '../core/PassPlugin.js';
import { writeTunedSchedule } from '../core/cache/tunedSchedules.js';
import { Tuner, type TuneRequest } from '../core/tune/Tuner.js';
import { presetModule, tunedPreset } from '../core/tune/tunedPreset.js';
import { STENCIL_HEADER, stencilModule, TempProject } from './TempProject.js';

/**
 * orch tune: a candidate that differs from the interpreter is refused and never written;
 * the preset it writes is the one a later build uses; bad arguments are usage errors.
 */

const tune = suite('tune');

/** A stencil whose launch is tiled: a temporary read at horizontal offsets. */
const TILED = `${STENCIL_HEADER}\n\ndef s(a: FloatField, b: FloatField, w: Float):\n    with computation(PARALLEL), interval(...):\n        t = a * w\n        b = t[1, 0, 0] - t[0, -1, 0] + a\n`;

const QUIET = { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined };

/** The schedule the test makes wrong: a tile shape no built-in knob offers. */
const WRONG_TILE = [3, 5] as const;

/**
 * A fake codegen knob value: builds whose preset asks for WRONG_TILE get a pass that drops
 * the stencil's arithmetic (every point writes 0), so they run fast and give wrong numbers.
 * Every other build, the interpreter's included, is left alone.
 */
const corruptWrongTile: OrchPlugin = {
  name: 'test-corrupt-wrong-tile',
  version: '1',
  apply(compiler: Compiler) {
    if (JSON.stringify(compiler.config.codegen.tile) !== JSON.stringify(WRONG_TILE)) return;
    new PassPlugin({
      name: 'test-zero-writes',
      hook: 'codegen',
      stage: -5,
      run(program) {
        for (const l of launches(program.body)) {
          for (const v of l.loops) for (const h of v.body) for (const s of h.body) if (s.kind === 'assign') s.value = { kind: 'lit', value: 0, dtype: s.value.dtype };
        }
      },
    }).apply(compiler);
  },
};

/** The tune request both Tuner tests make of stencil 's' (they differ in domain, scalars and runs). */
function request(config: TuneRequest['config'], file: string, domain: [number, number, number], scalars: Record<string, number>, runs: number) {
  return { config, pipeline: QUIET, module: file, entry: 's', externals: {}, defines: {}, domain, halo: 1, scalars, budgetS: 600, runs };
}

tune('a candidate that differs from the interpreter is refused, never timed, and never written', async () => {
  const p = new TempProject('tune-wrong');
  const file = p.write('m.py', stencilModule('s', 'a * w + a[1, 0, 0]'));
  const config = await resolveConfig({ configFile: null, cwd: p.dir });
  config.cacheRoot = p.dir;
  config.plugins = [...config.plugins, corruptWrongTile];
  const lines: string[] = [];
  const result = await new Tuner({
    ...request(config, file, [12, 10, 4], { w: 0.5 }, 3),
    knobs: [{ option: 'tile', describe: 'test: the default and a wrong schedule', values: () => ['auto', [...WRONG_TILE]] }],
    log: (l) => lines.push(l),
  }).run();
  const wrong = result.candidates.find((c) => c.label === 'tile=3x5');
  assert.ok(wrong, `the wrong candidate was tried: ${result.candidates.map((c) => c.label).join(', ')}`);
  assert.is(wrong.status, 'mismatch');
  assert.is(wrong.median_s, undefined, 'a refused candidate is never timed');
  assert.is(wrong.mismatch?.field, 'b');
  assert.ok(wrong.mismatch!.count > 0);
  assert.ok(lines.some((l) => /tile=3x5 +REFUSED: differs from the interpreter in 'b'/.test(l)), lines.join('\n'));
  assert.is(result.best.label, 'default', 'the only schedule that matched is the default');
  assert.equal(result.bestCodegen.tile, 'auto', "the preset's own tile");
  const written = presetModule(tunedPreset(config.preset, 'tuned', result), config.preset, result, 'orch tune m.py:s');
  assert.not.match(written, /3,\s*5/);
  assert.match(written, /"tile": "auto"/);
});

tune('a cpu-native build matches the interpreter bit for bit, so orch tune can tune with it (no FMA contraction)', async () => {
  const p = new TempProject('tune-native');
  // a * w + c is one fused multiply-add where g++ may contract it (-march=native on an FMA machine)
  const file = p.write('m.py', stencilModule('s', 'a * w + a[1, 0, 0] * a[0, 1, 0]'));
  const config = await resolveConfig({ configFile: null, cwd: p.dir, preset: 'cpu-native' });
  config.cacheRoot = p.dir;
  const result = await new Tuner({
    ...request(config, file, [16, 16, 8], { w: 0.1 }, 1),
    knobs: [{ option: 'tile', describe: 'test: the default only', values: () => [] }],
  }).run();
  assert.is(result.base.status, 'timed', JSON.stringify(result.base.mismatch));
});

tune('the preset orch tune writes is the one a later orch build uses', async () => {
  const p = new TempProject('tune-preset');
  p.write('m.py', stencilModule('s', 'a * w + a[1, 0, 0] - a[0, -1, 0]'));
  const r = await p.orch(['tune', 'm.py:s', '--domain', '10,9,3', '--halo', '1', '--scalars', '{"w": 0.25}', '--runs', '3', '--budget-s', '5', '--write-preset', 'fast', '--json']);
  assert.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { written: string; best: { status: string }; bestCodegen: Record<string, unknown>; candidates: { status: string }[] };
  assert.is(out.written, p.path('fast.preset.ts'));
  assert.is(out.best.status, 'timed');
  assert.ok(out.candidates.every((c) => c.status !== 'mismatch'), 'no built-in schedule differs from the interpreter');
  const text = p.read('fast.preset.ts');
  assert.match(text, /^\/\/ Written by `orch tune m\.py:s --domain 10,9,3`/);
  p.write('orch.config.ts', "import { defineConfig } from 'orch';\nimport fast from './fast.preset.ts';\n\nexport default defineConfig({ modules: ['m.py'], preset: fast });\n");
  const b = await p.orch(['build', '--json']);
  assert.is(b.code, 0, b.stderr);
  const root = p.path('.gt_cache_A/m/s');
  const latest = JSON.parse(readFileSync(path.join(root, 'latest.json'), 'utf8')) as { key: string };
  const info = JSON.parse(readFileSync(path.join(root, latest.key, 'build-info.json'), 'utf8')) as { inputs: { preset: string; codegen: unknown } };
  assert.is(info.inputs.preset, 'fast');
  assert.equal(info.inputs.codegen, out.bestCodegen);
  // the preset is plain data the config validates: a wrong backend is a config error, not a crash
  p.write('fast.preset.ts', text.replace('"backend": "cpu"', '"backend": "cpux"'));
  const bad = await p.orch(['build'], { NO_COLOR: '1' });
  assert.is(bad.code, 1, bad.stderr);
  assert.match(bad.stderr, "error E_CONFIG_VALUE: preset 'fast' names backend 'cpux', which orch does not have (in orch.config.ts)");
  assert.match(bad.stderr, "hint: did you mean 'cpu'?");
});

interface BuildJson {
  entries: { status: string; key: string; dir: string; reason?: string }[];
}

function buildInputs(dir: string): { preset: string; codegen: { tile?: unknown }; tuned?: unknown } {
  return (JSON.parse(readFileSync(path.join(dir, 'build-info.json'), 'utf8')) as { inputs: { preset: string; codegen: { tile?: unknown }; tuned?: unknown } }).inputs;
}

tune("a schedule recorded in the entry's cache folder is what orch build uses, and part of its key", async () => {
  const p = new TempProject('tune-record');
  p.write('m.py', TILED);
  const plain = JSON.parse((await p.orch(['build', 'm.py', '--json'])).stdout) as BuildJson;
  assert.is(plain.entries[0].status, 'miss');
  assert.equal(buildInputs(plain.entries[0].dir).codegen.tile, 'auto');
  // what --write-cache records (an odd tile no preset has, so only the record can have set it)
  writeTunedSchedule(path.dirname(plain.entries[0].dir), 'cpu', { codegen: { tile: [2, 3] }, domain: [8, 8, 4], tunedAt: new Date().toISOString() });
  const tuned = JSON.parse((await p.orch(['build', 'm.py', '--json'])).stdout) as BuildJson;
  assert.is(tuned.entries[0].status, 'miss', 'a new record is a new key: the entry is rebuilt');
  assert.is.not(tuned.entries[0].key, plain.entries[0].key);
  const inputs = buildInputs(tuned.entries[0].dir);
  assert.equal(inputs.codegen.tile, [2, 3]);
  assert.equal(inputs.tuned, { tile: [2, 3] });
  const cpp = readFileSync(path.join(tuned.entries[0].dir, readdirSync(tuned.entries[0].dir).find((f) => f.endsWith('.cpp'))!), 'utf8');
  assert.match(cpp, 'nti = std::max<int64_t>(1, dom0 / 2)', 'the generated loops cut tiles of 2 along I');
  const again = JSON.parse((await p.orch(['build', 'm.py', '--json'])).stdout) as BuildJson;
  assert.is(again.entries[0].status, 'hit');
  // orch info says what was recorded, and for which preset
  const info = await p.orch(['info', 'm.py']);
  assert.match(info.stdout, /\n  tuned for preset cpu: tile=2x3 \(at 8x8x4, \d{4}-/);
  const infoJson = JSON.parse((await p.orch(['info', 'm.py', '--json'])).stdout) as { tuned?: Record<string, { codegen: unknown }> }[];
  assert.equal(infoJson[0].tuned?.cpu.codegen, { tile: [2, 3] });
  // the record is per preset: another preset's build ignores it
  const native = JSON.parse((await p.orch(['build', 'm.py', '--json', '--preset', 'cpu-native'])).stdout) as BuildJson;
  assert.equal(buildInputs(native.entries[0].dir).codegen.tile, 'auto');
  const run = await p.orch(['run', 'm.py:s', '--mode', 'build-and-run', '--shape', '9,8,3', '--origin', '1,1,0', '--domain', '7,6,3', '--scalars', '{"w": 0.5}', '--check']);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /cache hit.*\n.*match/);
});

tune('orch tune --write-cache records the winner, and the next orch build of the entry is a hit on it', async () => {
  const p = new TempProject('tune-cache');
  p.write('m.py', stencilModule('s', 'a * w + a[1, 0, 0] - a[0, -1, 0]'));
  const r = await p.orch(['tune', 'm.py:s', '--domain', '10,9,3', '--halo', '1', '--scalars', '{"w": 0.25}', '--runs', '3', '--budget-s', '5', '--write-cache', '--json']);
  assert.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { written: string; best: { changes: Record<string, unknown> }; bestCodegen: unknown };
  assert.is(out.written, p.path('.gt_cache_A/m/s/tuned.json'));
  const recorded = Object.keys(out.best.changes).length > 0;
  const file = JSON.parse(readFileSync(out.written, 'utf8')) as { presets: Record<string, { codegen: unknown }> };
  if (recorded) assert.equal(file.presets.cpu.codegen, out.best.changes);
  else assert.is(file.presets.cpu, undefined, 'a default that won records nothing');
  const b = JSON.parse((await p.orch(['build', 'm.py', '--json'])).stdout) as BuildJson;
  assert.is(b.entries[0].status, 'hit', 'tune built the tuned entry already');
  assert.equal(buildInputs(b.entries[0].dir).codegen, out.bestCodegen);
});

tune('bad arguments are usage errors (exit 2), checked before anything is built', async () => {
  const p = new TempProject('tune-usage');
  p.write('m.py', stencilModule('s', 'a * w'));
  const cases: [string[], RegExp][] = [
    [['tune', 'm.py:s'], /error E_USAGE_DOMAIN: orch tune needs --domain NX,NY,NZ/],
    [['tune', 'm.py:s', '--domain', '8,8'], /error E_USAGE_DOMAIN: --domain expects three sizes above 0, got '8,8'/],
    [['tune', 'm.py:s', '--domain', '8,0,4'], /error E_USAGE_DOMAIN: --domain expects three sizes above 0/],
    [['tune', 'm.py:s', '--domain', '8,8,4', '--budget-s', '-3'], /error E_USAGE_TUNE: --budget-s expects a number above 0, got '-3'/],
    [['tune', 'm.py:s', '--domain', '8,8,4', '--runs', '2.5'], /error E_USAGE_TUNE: --runs expects a whole number above 0, got '2.5'/],
    [['tune', 'm.py:s', '--domain', '8,8,4', '--write-preset', 'cpu'], /error E_USAGE_TUNE: --write-preset cpu would shadow the built-in preset 'cpu'/],
    [['tune', 'm.py:s', '--domain', '8,8,4', '--write-preset', '../x'], /error E_USAGE_TUNE: --write-preset expects a name/],
    [['tune', 'm.py:s', '--domain', '8,8,4', '--write-preset', 'a', '--write-cache'], /error E_USAGE_TUNE: --write-preset and --write-cache both name where the winner goes/],
    [['tune', 'm.txt', '--domain', '8,8,4'], /error E_USAGE_TARGET/],
    [['tune', 'nope.py:s', '--domain', '8,8,4'], /error E_USAGE_PATH: no such module: nope\.py/],
    [['tune', 'm.py:s', '--domain', '8,8,4', '--scalars', '{'], /error E_USAGE_SCALARS/],
  ];
  for (const [args, message] of cases) {
    const r = await p.orch(args, { NO_COLOR: '1' });
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.match(r.stderr, /hint: /);
  }
  const r = await p.orch(['tune', 'm.py:s', '--domain', '8,8,4', '--budget-s', '1', '--runs', '1', '--preset', 'cuda']);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, /error E_TUNE_NOTHING: preset 'cuda' \(backend cuda\) has no schedule options to tune/);
});

tune.run();
