import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ORCH_BIN } from './TempProject.js';

/**
 * `orch clean` while other processes write into the cache (the soak test's finding): a
 * recursive remove in place failed with ENOTEMPTY as an internal error (exit 3).
 */

// stands in for builds: entry folders and files appearing as fast as a process can make them
const CHURN = `
const { mkdirSync, writeFileSync } = require('node:fs');
const root = process.argv[1];
const end = Date.now() + Number(process.argv[2]);
for (let i = 0; Date.now() < end; i++) {
  try {
    const d = root + '/.gt_cache_A/m' + (i % 5) + '/e/k' + i;
    mkdirSync(d, { recursive: true });
    for (let j = 0; j < 5; j++) writeFileSync(d + '/f' + j, 'x');
  } catch {}
}`;

const c = suite('clean while building');

c('orch clean while files appear in the cache exits 0 every time, and leaves no half-removed folder', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'orch-clean-race-'));
  const churn = execa(process.execPath, ['-e', CHURN, root, '15000'], { reject: false });
  try {
    for (let i = 0; i < 10; i++) {
      // bounded far above a clean's time on a loaded machine: a hang, not a slow run
      const r = await execa(process.execPath, [ORCH_BIN, 'clean'], { cwd: root, env: { GT_CACHE_ROOT: root }, reject: false, timeout: 150_000 });
      assert.is(r.exitCode, 0, `clean ${i}: exit ${r.exitCode}${r.timedOut ? ' (timed out)' : ''}\n${r.stderr}`);
      assert.not.match(r.stderr, /\n\s+at /);
    }
  } finally {
    churn.kill();
    await churn;
  }
  const r = await execa(process.execPath, [ORCH_BIN, 'clean'], { cwd: root, env: { GT_CACHE_ROOT: root }, reject: false });
  assert.is(r.exitCode, 0, r.stderr);
  assert.equal(readdirSync(root), [], 'the cache folder and every folder renamed aside are gone');
});

c.run();
