import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO } from './TempProject.js';

/**
 * A call without `domain=` runs on GT4Py's default domain, `shape - origin - upper boundary`
 * (GT4Py's `_get_max_domain`), in Python mode and compiled. Before, orch took
 * `shape - origin` and refused both calls below (E_OUT_OF_BOUNDS), where GT4Py runs them.
 */
const defaults = suite('default domain');

defaults('the default domain leaves room for reads and writes past its end', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-default-domain-'));
  const r = await execa('python3', [path.join(REPO, 'test/python/default_domain/check.py')], {
    cwd: dir,
    reject: false,
    env: { PYTHONPATH: path.join(REPO, 'python'), GT_CACHE_ROOT: dir },
  });
  assert.is(r.exitCode, 0, String(r.stderr));
  const lines = [];
  for (const mode of ['python', 'build-and-run']) lines.push(`${mode} lower_dims True`, `${mode} shift_up [0.0, 40.0, 41.0, 42.0]`);
  assert.fixture(String(r.stdout).trim(), lines.join('\n'));
});

defaults.run();
