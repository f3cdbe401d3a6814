import { execFileSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withinSeconds } from './withinSeconds.js';

/** The hang guard of the CLI tests: late work fails, and settled work leaves no timer behind. */

const guard = suite('withinSeconds');

guard('work that settles in time gives its value; work that does not is a failure naming it', async () => {
  assert.is(await withinSeconds(5, 'late', Promise.resolve(7)), 7);
  const t0 = Date.now();
  try {
    await withinSeconds(0.2, 'orch run did not finish in 0.2 s', new Promise(() => undefined));
    assert.unreachable('a hang passed');
  } catch (e) {
    assert.is((e as Error).message, 'orch run did not finish in 0.2 s');
  }
  assert.ok(Date.now() - t0 < 3000);
});

guard('a process whose guarded work settled exits at once, not when the guard would have fired', () => {
  // a Promise.race with a bare setTimeout kept compileTimeValues.test alive 29 s after its last test
  const t0 = Date.now();
  const script = `import { withinSeconds } from ${JSON.stringify(new URL('./withinSeconds.js', import.meta.url).href)};\nawait withinSeconds(60, 'late', Promise.resolve(1));\nawait withinSeconds(60, 'late', Promise.reject(new Error('failed')).catch(() => 0));\n`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe', timeout: 30_000 });
  const s = (Date.now() - t0) / 1000;
  assert.ok(s < 20, `the process lived ${s.toFixed(1)} s`);
});

guard.run();
