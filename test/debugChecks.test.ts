import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/** Debug insertion on the CPU: NaN, negative tracers and negative delp, abort or log. */
const orchBin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/orch.js');
/** The module the debug tests run (fixtures/debug; test/cudaDebugChecks.test.ts runs it on the CUDA side). */
const DEBUG_MODULE = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/debug/physics.py'), 'utf8');

function project(config = ''): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-debug-'));
  writeFileSync(path.join(dir, 'm.py'), DEBUG_MODULE);
  if (config) writeFileSync(path.join(dir, 'orch.config.ts'), config);
  return dir;
}

const run = (dir: string, mode: string, extra: string[], w: number) =>
  execa(process.execPath, [orchBin, 'run', 'm.py:physics', '--mode', mode, '--shape', '4,3,2', '--scalars', JSON.stringify({ w }), ...extra], { cwd: dir, env: { GT_CACHE_ROOT: dir }, reject: false });

for (const mode of ['python', 'build-and-run']) {
  test(`${mode}: a negative tracer aborts the call with program, stencil, line and i, j, k`, async () => {
    const dir = project();
    // synthetic inputs lie in [1, 2): w = 2.5 makes qvapor negative at the first point, and
    // its check runs before the other writes there
    const r = await run(dir, mode, ['--debug'], 2.5);
    assert.is(r.exitCode, 1, r.stderr);
    assert.match(r.stderr, 'debug check');
    assert.match(r.stderr, 'in program physics, stencil physics');
    assert.match(r.stderr, /m\.py:7/);
    assert.match(r.stderr, /i=\d+, j=\d+, k=\d+/);
    assert.match(r.stderr, /qvapor is -?[\d.e-]+, below -1e-8/);
  });

  test(`${mode}: NaN is caught, and log mode reports and continues`, async () => {
    const dir = project("export default { debug: { action: 'log', tracers: [], delp: false } };\n");
    const r = await run(dir, mode, ['--debug', '--out', 'out'], 5.0);
    assert.is(r.exitCode, 0, r.stderr);
    assert.match(r.stderr, /t is NaN at i=\d+, j=\d+, k=\d+ in program physics, stencil physics \(.*m\.py:9\)/);
    assert.not.match(r.stderr, 'qvapor is');
  });

  test(`${mode}: without --debug nothing is checked`, async () => {
    const dir = project();
    const r = await run(dir, mode, [], 5.0);
    assert.is(r.exitCode, 0, r.stderr);
    assert.not.match(r.stderr, 'debug check');
  });
}

test('a negative delp is checked against 0', async () => {
  const dir = project("export default { debug: { tracers: [] } };\n");
  const r = await run(dir, 'build-and-run', ['--debug'], 0.9);
  assert.is(r.exitCode, 1);
  assert.match(r.stderr, /delp is -[\d.e-]+, below 0/);
});

test.run();
