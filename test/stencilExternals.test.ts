import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO } from './TempProject.js';

/**
 * A stencil object made with `externals=` (GT4Py's `gtscript.stencil(backend, definition,
 * externals=...)`) builds with those externals in compiled modes, and each set of values is
 * its own cache entry: `run` mode finds all three again. Before, the compiled build never saw
 * them (E_EXTERNAL_MISSING).
 */
const externals = suite('stencil object externals');

externals('compiled modes build with the externals the stencil object was made with', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-stencil-externals-'));
  const here = path.join(REPO, 'test/python/stencil_externals');
  const r = await execa('python3', [path.join(here, 'check.py')], {
    cwd: dir,
    reject: false,
    env: { PYTHONPATH: [path.join(REPO, 'python'), here].join(path.delimiter), GT_CACHE_ROOT: dir },
  });
  assert.is(r.exitCode, 0, String(r.stderr));
  const lines = [];
  for (const mode of ['python', 'build-and-run', 'run']) for (const [s, n] of [['2.0', 1], ['3.0', 1], ['2.0', 5]]) lines.push(`${mode} ${s} ${n} True`);
  assert.fixture(String(r.stdout).trim(), lines.join('\n'));
});

/**
 * Externals that are objects: an axis (`field[AXIS - 1]`) and a nested `types.SimpleNamespace`
 * (`NS.nested.add`), in Python mode and compiled. Before, the package refused both
 * ("external of type Axis cannot be passed to orch").
 */
externals('an Axis and a SimpleNamespace as externals', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-stencil-externals-'));
  const r = await execa('python3', [path.join(REPO, 'test/python/stencil_externals/objects.py')], {
    cwd: dir,
    reject: false,
    env: { PYTHONPATH: path.join(REPO, 'python'), GT_CACHE_ROOT: dir },
  });
  assert.is(r.exitCode, 0, String(r.stderr));
  assert.fixture(String(r.stdout).trim(), ['python I True', 'python J True', 'build-and-run I True', 'build-and-run J True'].join('\n'));
});

externals.run();
