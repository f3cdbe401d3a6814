import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * `<sym>_run_bound` (issue 18 item 6): the Python binding's per-call comparison of its bound
 * fields runs in C. The fast path must refuse every wrong argument exactly as the old path
 * (checks in Python, then `<sym>_run`) does, and the old path stays for libraries without it.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');

const t = suite('run_bound');

t('the binding runs bound arrays through run_bound and rejects wrong arguments as the old entry point did', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-run-bound-'));
  const r = await execa('python3', [path.join(repo, 'test/python/check_run_bound.py'), dir], {
    cwd: dir,
    reject: false,
    env: { PYTHONPATH: path.join(repo, 'python'), ORCH_MODE: 'build-and-run', GT_CACHE_ROOT: dir },
  });
  assert.is(r.exitCode, 0, String(r.stdout) + String(r.stderr));
  assert.is(String(r.stdout).trim(), 'ok');
});

t.run();
