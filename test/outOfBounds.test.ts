import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ORCH_BIN, STENCIL_HEADER } from './TempProject.js';

/**
 * A call whose domain does not fit its array fails at run time. Compiled and interpreted,
 * the error is E_OUT_OF_BOUNDS located at the call that failed (not at the program's
 * `def`, nor a bare E_RUNTIME with the place inside its message), with a hint.
 */

const oob = suite('out of bounds at run time');

const MODULE = `${STENCIL_HEADER}from orch import program, stencil


@stencil
def scale(q: FloatField, w: Float):
    with computation(PARALLEL), interval(...):
        q = q * w


@program
def prog(q: FloatField, w: Float):
    nx, ny, nz = q.shape
    scale(q, w)
    scale(q, w, origin=(0, 0, 0), domain=(nx + 2, ny, nz))
`;

const diagnostic = (indices: string) => `<dir>/m.py:16:5: error E_OUT_OF_BOUNDS: stencil 'scale': array 'q' is accessed at I ${indices}, outside its shape [4, 4, 3]
  14 |     nx, ny, nz = q.shape
  15 |     scale(q, w)
> 16 |     scale(q, w, origin=(0, 0, 0), domain=(nx + 2, ny, nz))
     |     ^
  17 | 
hint: the call's domain and origin do not fit this array: enlarge the array, or shrink the domain (or move the origin) at this call`;

for (const [mode, indices] of [['build-and-run', 'indices [0, 5]'], ['python', 'index 4']]) {
  oob(`${mode}: located at the call that failed, with a hint`, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-oob-'));
    writeFileSync(path.join(dir, 'm.py'), MODULE);
    const r = await execa(process.execPath, [ORCH_BIN, 'run', 'm.py:prog', '--mode', mode, '--shape', '4,4,3', '--scalars', '{"w": 2}'], { cwd: dir, reject: false, env: { GT_CACHE_ROOT: dir, NO_COLOR: '1' } });
    assert.is(r.exitCode, 1);
    assert.fixture(String(r.stderr).replaceAll(dir, '<dir>').trimEnd(), diagnostic(indices));
  });
}

oob.run();
