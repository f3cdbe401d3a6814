import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO } from './TempProject.js';

/**
 * GT4Py's call interface (its stencil_object.py), on orch's interpreter and compiled: any
 * object with `__array_interface__` is an array (viewed, so writes land in the caller's
 * memory), `__gt_origin__` is a field's default origin after origin=`s entry and `_all_`,
 * `__gt_dims__` is checked against the field's axes (or transposed when only the order
 * differs), a `=None` field or scalar the folded stencil never touches may be left out,
 * and exec_info gets GT4Py's timing keys. Before, each of these raised TypeError or E_ARG_MISSING.
 */
const call = suite('call interface');

call('array-likes, __gt_origin__, __gt_dims__, left-out arguments and exec_info in both modes', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-call-interface-'));
  const r = await execa('python3', [path.join(REPO, 'test/python/call_interface/check.py')], {
    cwd: dir,
    reject: false,
    env: { PYTHONPATH: path.join(REPO, 'python'), GT_CACHE_ROOT: dir },
  });
  assert.is(r.exitCode, 0, String(r.stderr));
  const lines = [];
  for (const mode of ['python', 'build-and-run']) {
    lines.push(
      `${mode} gt_origin 24.0 24.0`,
      `${mode} origin_entry [[2, 2, 0]]`,
      `${mode} origin_all [[3, 3, 1]] 2.0`,
      `${mode} permuted 72.0`,
      `${mode} dims ValueError: Storage for 'out' has dimensions '['I', 'K']' but the API signature expects '[I, J]'`,
      `${mode} rank ValueError: Storage for 'out' has 3 dimensions but the API signature expects 2 ('[I, J]')`,
      `${mode} left_out 6.0`,
      `${mode} all_given 32.0`,
      `${mode} field_needed ValueError: field 'second' was left out (None), but the stencil reads or writes it; pass an array`,
      `${mode} scalar_needed TypeError: scalar 'unused' was left out (None), but the stencil reads it; pass a value`,
      `${mode} exec_info True`,
      `${mode} too_large ValueError`,
    );
  }
  assert.fixture(String(r.stdout).trim(), lines.join('\n'));
});

call.run();
