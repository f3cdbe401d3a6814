import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO } from './TempProject.js';

/**
 * test/run.ts, the runner CI reads the totals of: uvu's totals are summed over files run in
 * parallel, and a file that fails, crashes at import, crashes after its tests passed or hangs
 * counts as failed (a hang is stopped at the per-file timeout with what it started); the
 * totals line stays last.
 */

const UVU = pathToFileURL(path.join(REPO, 'node_modules/uvu/dist/index.mjs')).href;
const ASSERT = pathToFileURL(path.join(REPO, 'node_modules/uvu/assert/index.mjs')).href;

function files(): { dir: string; pidFile: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-runner-'));
  const pidFile = path.join(dir, 'sleep.pid');
  const w = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  w('a/passes.test.js', `import { test } from '${UVU}';\ntest('one', () => {});\ntest('two', () => {});\ntest.run();\n`);
  w('a/fails.test.js', `import { test } from '${UVU}';\nimport * as assert from '${ASSERT}';\ntest('ok', () => {});\ntest('bad', () => assert.is(1, 2));\ntest.run();\n`);
  w('b/crashes.test.js', `throw new Error('boom at import');\n`);
  w('b/late.test.js', `import { test } from '${UVU}';\ntest('then a late throw', () => void setTimeout(() => { throw new Error('late'); }, 50));\ntest.run();\n`);
  w(
    'c/hangs.test.js',
    `import { test } from '${UVU}';\nimport { spawn } from 'node:child_process';\nimport { writeFileSync } from 'node:fs';\n` +
      `test('hangs', async () => { const c = spawn('sleep', ['600'], { stdio: 'ignore' }); writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); await new Promise(() => {}); });\ntest.run();\n`,
  );
  w('c/not-a-test.js', `throw new Error('never run');\n`);
  return { dir, pidFile };
}

function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

test('totals are summed over files; failures, crashes and hangs count as failed; the totals line is last', async () => {
  const { dir, pidFile } = files();
  const r = await execa(process.execPath, [path.join(REPO, 'dist/test/run.js')], { env: { ORCH_TEST_ROOT: dir, ORCH_TEST_JOBS: '3', ORCH_TEST_TIMEOUT_S: '5' }, reject: false, all: true });
  const out = String(r.all);
  assert.is(r.exitCode, 1, out);
  const lines = out.trimEnd().split('\n');
  // passes 2, fails 1+1, crashes 0+1, late 1+1, hangs 0+1
  assert.is(lines[lines.length - 1], '4 passed, 4 failed', out);
  assert.match(out, /✘ FAIL b\/crashes\.test\.js · 0 passed, 1 failed · .* · no uvu totals \(exit 1\)/);
  assert.match(out, /✘ FAIL b\/late\.test\.js · 1 passed, 1 failed · .* · exit 1 after its tests passed/);
  assert.match(out, /✘ FAIL c\/hangs\.test\.js · 0 passed, 1 failed · .* · timed out after 5 s/);
  assert.match(out, /✔ a\/passes\.test\.js · 2 passed/);
  assert.match(out, /boom at import/, 'a crashing file shows its output');
  assert.not.match(out, 'never run', 'only *.test.js files run');
  assert.not.ok(alive(Number(readFileSync(pidFile, 'utf8'))), 'what a hung file started is killed with it');
});

test('a pattern that matches no file is a failure, not an empty success', async () => {
  const { dir } = files();
  const r = await execa(process.execPath, [path.join(REPO, 'dist/test/run.js'), 'no-such-file'], { env: { ORCH_TEST_ROOT: dir }, reject: false, all: true });
  assert.is(r.exitCode, 2);
  assert.ok(String(r.stdout).trimEnd().endsWith('0 passed, 1 failed'), String(r.all));
});

test.run();
