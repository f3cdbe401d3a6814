import os from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stencilModule, TempProject } from './TempProject.js';

/**
 * `orch run`'s call options (issue 12, items 10, 14 and 15): every bad value is a coded
 * usage error (exit 2) with the whole message and hint, before anything is built or run.
 */

const args = suite('run arguments');

const W = ['--scalars', '{"w": 2.0}'];

function project(): TempProject {
  const p = new TempProject('runargs');
  p.write('m.py', stencilModule('s', 'a * w'));
  return p;
}

async function refused(p: TempProject, extra: string[], code: number, text: string, mode = 'python') {
  const r = await p.orch(['run', 'm.py:s', '--mode', mode, ...W, ...extra], { NO_COLOR: '1' });
  assert.is(r.stderr.trimEnd(), text, `orch run ${extra.join(' ')}`);
  assert.is(r.code, code, r.stderr);
  assert.is(r.stdout, '');
}

function gib(n: number): string {
  return `${(n / 1024 ** 3).toFixed(1)} GiB`;
}

args('--shape: huge sizes say how many bytes they ask for; negative sizes are refused', async () => {
  const p = project();
  await refused(p, ['--shape=1e9,1e9,1e9'], 2, `error E_USAGE_SHAPE: --shape 1e9,1e9,1e9 asks for 1.39e+10 EiB (1.6e+28 bytes) for 2 field(s), but this machine has ${gib(os.totalmem())} of memory and one array holds at most 2^32 elements\nhint: give a smaller --shape`);
  await refused(p, ['--shape', '100000,100000,1000'], 2, `error E_USAGE_SHAPE: --shape 100000,100000,1000 asks for 145.5 TiB (160000000000000 bytes) for 2 field(s), but this machine has ${gib(os.totalmem())} of memory and one array holds at most 2^32 elements\nhint: give a smaller --shape`);
  await refused(p, ['--shape=-1,4,3'], 2, "error E_USAGE_SHAPE: --shape sizes must not be negative, got -1 along I ('-1,4,3')\nhint: write --shape 8,8,4");
  await refused(p, ['--shape', '-1,4,3'], 2, "error E_USAGE_SHAPE: --shape sizes must not be negative, got -1 along I ('-1,4,3')\nhint: write --shape 8,8,4");
  await refused(p, ['--shape', '4,3'], 2, "error E_USAGE_SHAPE: --shape expects three sizes NX,NY,NZ, got 2 ('4,3')\nhint: write --shape 8,8,4");
});

args('an empty domain is refused as GT4Py refuses it, never reported as a stale argument', async () => {
  const p = project();
  // GT4Py's StencilObject: "Compute domain contains zero sizes"
  for (const mode of ['python', 'build-and-run']) {
    await refused(p, ['--shape', '0,4,3', '--domain', '0,4,3'], 2, 'error E_USAGE_DOMAIN: domain (0, 4, 3) has no points along I; GT4Py refuses an empty compute domain\nhint: give every axis of --domain at least one point', mode);
    await refused(p, ['--shape', '0,4,3'], 1, "error E_DOMAIN_EMPTY: field 'a' of shape (0, 4, 3) at origin (0, 0, 0) leaves no points along I, so the compute domain is empty\nhint: pass fields with at least one point per axis beyond their origin, as GT4Py requires", mode);
  }
  // the domain orch infers is never reported as if the user had written it
  await refused(p, ['--shape', '1,4,3', '--origin', '2,0,0'], 1, "error E_DOMAIN_EMPTY: field 'a' of shape (1, 4, 3) at origin (2, 0, 0) leaves no points along I, so the compute domain is empty\nhint: pass fields with at least one point per axis beyond their origin, as GT4Py requires");
});

args('--origin: one index per axis, per-field origins only for fields of the stencil', async () => {
  const p = project();
  await refused(p, ['--shape', '3,3,3', '--origin', '1,0'], 2, 'error E_USAGE_ORIGIN: origin (1, 0) has 2 entries, but the fields have axes I, J, K\nhint: give one index per axis: --origin 0,0,0');
  await refused(p, ['--shape', '3,3,3', '--origin', '1,0,0,0'], 2, 'error E_USAGE_ORIGIN: origin (1, 0, 0, 0) has 4 entries, but the fields have axes I, J, K\nhint: give one index per axis: --origin 0,0,0');
  await refused(p, ['--shape', '3,3,3', '--origin', '{"aa": [1, 0, 0]}'], 2, "error E_USAGE_ORIGIN: origin for 'aa', which is no field of the stencil\nhint: did you mean 'a'?");
  await refused(p, ['--shape', '3,3,3', '--origin', '{"_all_": [1, 0]}'], 2, 'error E_USAGE_ORIGIN: origin _all_ (1, 0) has 2 entries, but the fields have axes I, J, K\nhint: give one index per axis: {"_all_": [0, 0, 0]}');
  // a negative origin is a value, not a flag: it reaches the call, whose bounds check refuses it
  const r = await p.orch(['run', 'm.py:s', ...W, '--shape', '3,3,3', '--origin', '-1,0,0'], { NO_COLOR: '1' });
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, /^.*m\.py:5:5: error E_OUT_OF_BOUNDS: .*'b' is accessed at I index -1, outside its shape/);
  const ok = await p.orch(['run', 'm.py:s', ...W, '--shape', '3,3,3', '--origin', '1,0,0', '--domain', '2,3,3', '--json']);
  assert.is(ok.code, 0, ok.stderr);
});

args('--repeat takes a count: words and negative numbers are refused', async () => {
  const p = project();
  await refused(p, ['--shape', '3,3,3', '--repeat', 'abc'], 2, "error E_USAGE_REPEAT: --repeat expects a count of further calls (0 or more), got 'abc'\nhint: write --repeat 10");
  await refused(p, ['--shape', '3,3,3', '--repeat', '-5'], 2, "error E_USAGE_REPEAT: --repeat expects a count of further calls (0 or more), got '-5'\nhint: write --repeat 10");
  await refused(p, ['--shape', '3,3,3', '--repeat=2.5'], 2, "error E_USAGE_REPEAT: --repeat expects a count of further calls (0 or more), got '2.5'\nhint: write --repeat 10");
  const ok = await p.orch(['run', 'm.py:s', ...W, '--shape', '3,3,3', '--repeat', '2', '--json']);
  assert.is(ok.code, 0, ok.stderr);
  assert.is(JSON.parse(ok.stdout).runs, 2);
});

args.run();
