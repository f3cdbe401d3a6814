import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { STENCIL_HEADER, TempProject } from './TempProject.js';

/**
 * A stencil's `while` loop is bounded in compiled code as in Python mode (issue 12, item 7):
 * codegen.maxWhileIterations (default 1e7; fixtures/rejections/while-loop-without-end runs
 * the default on the CPU build, and cudaEmulation.test.ts on the CUDA code), reported as the
 * same located E_RUNTIME, and part of the cache key.
 */

const bound = suite('while bound');

const MODULE = `${STENCIL_HEADER}\n\ndef count(a: FloatField, b: FloatField, w: Float):\n    with computation(PARALLEL), interval(...):\n        x = a\n        while x < w:\n            x = x + 1.0\n        b = x\n`;

function project(max: number): TempProject {
  const p = new TempProject('whilebound');
  p.write('m.py', MODULE);
  p.write('orch.config.ts', `export default { codegen: { maxWhileIterations: ${max} } };\n`);
  return p;
}

bound('codegen.maxWhileIterations bounds Python mode and the compiled library alike, with one diagnostic', async () => {
  const p = project(1000);
  const run = (mode: string, w: number) => p.orch(['run', 'm.py:count', '--mode', mode, '--shape', '3,2,2', '--scalars', JSON.stringify({ w }), '--json'], { NO_COLOR: '1' });
  const want = `${p.path('m.py')}:8:9: error E_RUNTIME: stencil count: while loop did not terminate after 1000 iterations
  6 |     with computation(PARALLEL), interval(...):
  7 |         x = a
> 8 |         while x < w:
    |         ^
  9 |             x = x + 1.0
hint: check the loop condition, or raise codegen.maxWhileIterations in orch.config.ts if the loop is just long`;
  for (const mode of ['python', 'build-and-run']) {
    const r = await run(mode, 1500.5);
    assert.is(r.stderr.trimEnd(), want, mode);
    assert.is(r.code, 1, mode);
  }
  // below the bound both run, and agree
  const ok = await run('build-and-run', 900.5);
  assert.is(ok.code, 0, ok.stderr);
  assert.ok(JSON.parse(ok.stdout).cache === 'hit');
  const checked = await p.orch(['run', 'm.py:count', '--mode', 'run', '--shape', '3,2,2', '--scalars', '{"w": 900.5}', '--check', '--json']);
  assert.is(checked.code, 0, checked.stderr);
  assert.ok(JSON.parse(checked.stdout).check.passed);
});

bound('the bound is part of the cache key', async () => {
  const p = project(1000);
  const first = await p.orch(['build', 'm.py', '--json']);
  assert.is(first.code, 0, first.stderr);
  p.write('orch.config.ts', 'export default { codegen: { maxWhileIterations: 2000 } };\n');
  const second = await p.orch(['build', 'm.py', '--json']);
  assert.is(second.code, 0, second.stderr);
  const e = JSON.parse(second.stdout).entries[0];
  assert.is(e.status, 'miss');
  assert.match(e.reason, 'codegen');
  assert.is.not(e.key, JSON.parse(first.stdout).entries[0].key);
});

bound('a bound that is not a positive integer is a config error', async () => {
  const p = project(0);
  const r = await p.orch(['build', 'm.py'], { NO_COLOR: '1' });
  assert.is(r.code, 1);
  assert.match(r.stderr, 'E_CONFIG_VALUE');
  assert.match(r.stderr, 'codegen.maxWhileIterations');
});

bound.run();
