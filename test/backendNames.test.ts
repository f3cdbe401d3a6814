import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ORCH_BIN, STENCIL_HEADER } from './TempProject.js';

/**
 * The command line's honest switches: `backend=` in `@gtscript.stencil(...)` is read by
 * orch build (an unknown name, a backend for other hardware than the preset, and numpy's
 * Python mode are errors, never a silent CPU build), and `--define` of a name the entry
 * does not take is a usage error (exit 2), not a new identical cache variant. Each asserts
 * the whole diagnostic and the exit code.
 */

const honest = suite('backend names and defines');

const MODULE = `${STENCIL_HEADER}from gt4py.cartesian import gtscript
from orch import compiletime, program


@gtscript.stencil(backend=BACKEND)
def copy(a: FloatField, b: FloatField):
    with computation(PARALLEL), interval(...):
        b = a


@program
def twice(q: FloatField, n: compiletime(int) = 3):
    for i in range(n):
        copy(q, q)
`;

async function build(backend: string, args: string[]) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-backend-'));
  writeFileSync(path.join(dir, 'm.py'), MODULE.replace('BACKEND', JSON.stringify(backend)));
  const r = await execa(process.execPath, [ORCH_BIN, 'build', ...args], { cwd: dir, reject: false, env: { GT_CACHE_ROOT: dir, NO_COLOR: '1' } });
  return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr).replaceAll(dir, '<dir>').trimEnd() };
}

const frame = (col: number, carets: number, backend: string) =>
  `  5 | \n  6 | \n> 7 | @gtscript.stencil(backend="${backend}")\n    | ${' '.repeat(col - 1)}${'^'.repeat(carets)}\n  8 | def copy(a: FloatField, b: FloatField):`;

honest('an unknown backend= name is an error at the name, with a did-you-mean', async () => {
  const r = await build('gt:gpuu', ['m.py:copy']);
  assert.is(r.code, 1);
  assert.fixture(
    r.stderr,
    `<dir>/m.py:7:27: error E_BACKEND_UNKNOWN: unknown backend 'gt:gpuu'\n${frame(27, 9, 'gt:gpuu')}\nhint: did you mean 'gt:gpu'? orch knows numpy (Python mode), gt:cpu_ifirst, gt:cpu_kfirst and dace:cpu (a CPU preset), gt:gpu, dace:gpu and cuda (a CUDA preset)`,
  );
});

honest("a GPU backend= under the cpu preset is an error naming the preset to use, not a CPU build", async () => {
  const r = await build('gt:gpu', ['m.py:copy']);
  assert.is(r.code, 1);
  assert.fixture(
    r.stderr,
    `<dir>/m.py:7:27: error E_BACKEND_PRESET: stencil 'copy' has backend 'gt:gpu', which means a CUDA preset, but this build uses preset 'cpu'\n${frame(27, 8, 'gt:gpu')}\nhint: build it with --preset cuda (or set preset: 'cuda' in orch.config.ts), or change backend= to one for CPU: "gt:cpu_ifirst"`,
  );
  assert.match(r.stdout, '0 built, 1 error(s)');
});

honest("backend='numpy' means Python mode: orch build says so; orch run interprets it", async () => {
  const r = await build('numpy', ['m.py:copy']);
  assert.is(r.code, 1);
  assert.fixture(
    r.stderr,
    `<dir>/m.py:7:27: error E_BACKEND_PYTHON: stencil 'copy' has backend 'numpy', which runs it in Python mode: orch interprets it and builds no library\n${frame(27, 7, 'numpy')}\nhint: run it with orch run --mode python (the default of orch run), or give it a compiled backend, e.g. backend="gt:cpu_ifirst"`,
  );
});

honest('a CPU backend= builds with the cpu preset; inside a program the stencil is compiled with it', async () => {
  const r = await build('gt:cpu_kfirst', ['m.py']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, '1 entry: 0 hit, 1 built, 0 error(s)');
  const inProgram = await build('numpy', ['m.py:twice']);
  assert.is(inProgram.code, 0, inProgram.stderr);
});

honest('--define of a name the entry does not take is a usage error with a did-you-mean (exit 2)', async () => {
  const p = await build('gt:cpu_ifirst', ['m.py:twice', '--define', 'nn=2']);
  assert.is(p.code, 2);
  assert.fixture(
    p.stderr,
    `<dir>/m.py:14:5: error E_USAGE_DEFINE_NAME: --define nn: program 'twice' has no compile-time argument 'nn'\n  12 | \n  13 | @program\n> 14 | def twice(q: FloatField, n: compiletime(int) = 3):\n     |     ^^^^^\n  15 |     for i in range(n):\nhint: did you mean 'n'?`,
  );
  const s = await build('gt:cpu_ifirst', ['m.py:copy', '--define', 'x=1']);
  assert.is(s.code, 2);
  assert.fixture(
    s.stderr,
    `<dir>/m.py:8:5: error E_USAGE_DEFINE_NAME: --define x: stencil 'copy' takes no compile-time arguments\n  6 | \n  7 | @gtscript.stencil(backend="gt:cpu_ifirst")\n> 8 | def copy(a: FloatField, b: FloatField):\n    |     ^^^^\n  9 |     with computation(PARALLEL), interval(...):\nhint: pass externals with --externals instead, or drop --define`,
  );
  assert.match(s.stdout, '0 built, 1 error(s)');
});

honest.run();
