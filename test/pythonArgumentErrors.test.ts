import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO, STENCIL_HEADER } from './TempProject.js';

/**
 * A stencil called from Python with arguments its annotations rule out raises the same
 * exception class and message in Python mode as in compiled mode: no command-line hints
 * (--in, --domain), no AttributeError from inside orch, and an array passed as a scalar is
 * said to be one (not "has no field argument 'w', did you mean 'q'?").
 */

const args = suite('python argument errors');

const MODULE = `${STENCIL_HEADER}from orch import stencil


@stencil
def scale(q: FloatField, w: Float):
    with computation(PARALLEL), interval(...):
        q = q * w
`;

const EXPECTED = `array as scalar: TypeError: scale: argument 'w' must be a number (float64), got a numpy array of shape (4, 4, 3)
scalar as field: TypeError: scale: argument 'q' must be a numpy array (float64, IJK), got float
list as field: TypeError: scale: argument 'q' must be a numpy array (float64, IJK), got list
wrong dtype: TypeError: scale: argument 'q' has dtype float32, expected float64: convert it with .astype(np.float64)
domain too big: ValueError: scale: domain (4, 4, 3) at origin (1, 0, 0) needs 'q' to have at least 5 points along I, but it has shape (4, 4, 3): pass a smaller domain= or move origin=`;

for (const mode of ['python', 'build-and-run']) {
  args(`${mode}: the same classes and messages`, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-pyargs-'));
    writeFileSync(path.join(dir, 'scaled.py'), MODULE);
    const r = await execa('python3', [path.join(REPO, 'test/python/check_argument_errors.py'), dir], {
      cwd: dir,
      reject: false,
      env: { PYTHONPATH: path.join(REPO, 'python'), ORCH_MODE: mode, GT_CACHE_ROOT: dir },
    });
    assert.is(r.exitCode, 0, String(r.stderr));
    assert.fixture(String(r.stdout).trim(), EXPECTED);
  });
}

args.run();
