import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic, OrchError } from '../core/diagnostics.js';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import { printProgram } from '../core/ir/print.js';
import { allocate, type NDArray } from '../core/runtime/ndarray.js';
import { NativeLibrary } from '../core/runtime/NativeLibrary.js';

/**
 * Host callbacks (`@callback`): lowered with their signature, called in program order
 * relative to stencil launches by both the interpreter and compiled libraries, with
 * results flowing back into the program and failures ending the run.
 */

const root = mkdtempSync(path.join(os.tmpdir(), 'orch-callbacks-'));
const config = await resolveConfig({ configFile: null, cwd: root });
config.cacheRoot = root;

const HEADER = `import math
from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl.dsl.typing import Float, FloatField
from orch import callback, program, stencil

@stencil
def axpy(x: FloatField, y: FloatField, a: Float):
    with computation(PARALLEL), interval(...):
        y = y + a * x
`;

let n = 0;
function moduleFile(source: string): string {
  const file = path.join(root, `m${n++}.py`);
  writeFileSync(file, HEADER + source);
  return file;
}

async function build(file: string, entry: string, mode: 'python' | 'build') {
  const compiler = new Compiler({ ...config, verifyIR: true }, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [file], entry, externals: {}, defines: {}, mode });
  return r;
}

function field(shape: number[], fill: (n: number) => number): NDArray {
  const a = allocate('float64', shape);
  for (let i = 0; i < a.data.length; i++) a.data[i] = fill(i);
  return a;
}

const ORDER = `
@callback
def weight(step: int) -> float:
    return 0.5 * step

@callback
def log(step: int, where: int) -> None:
    pass

@program
def ordered(x: FloatField, y: FloatField, n: int):
    for step in range(n):
        log(step, 1)
        w = weight(step)
        axpy(x, y, w)
        log(step, 2)
`;

const cb = suite('callbacks');

cb('a callback call lowers to a callback statement with typed arguments and a result local', async () => {
  const r = await build(moduleFile(ORDER), 'ordered', 'python');
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  const text = printProgram(r.entries[0].program!);
  assert.match(text, 'callback weight(step: int64) -> float64 {');
  assert.match(text, 'callback log(step, 1)');
  assert.match(text, 'callback weight(step) -> w');
  assert.equal(r.entries[0].program!.callbacks!.map((c) => c.name), ['log', 'weight']);
});

cb('interpreter and compiled library call hosts in program order, results feeding stencils', async () => {
  const file = moduleFile(ORDER);
  const py = await build(file, 'ordered', 'python');
  const calls: string[] = [];
  const hosts = {
    log: (a: number[]) => void calls.push(`log${a[0]}.${a[1]}`),
    weight: (a: number[]) => {
      calls.push(`w${a[0]}`);
      return 0.5 * a[0] + 1;
    },
  };
  const x = field([3, 2, 2], (i) => i);
  const yi = field([3, 2, 2], () => 1);
  new Interpreter(py.entries[0].program!, { callbacks: hosts }).run({ x, y: yi, n: 3 });
  const expected = ['log0.1', 'w0', 'log0.2', 'log1.1', 'w1', 'log1.2', 'log2.1', 'w2', 'log2.2'];
  assert.equal(calls, expected);
  // y = 1 + (1 + 1.5 + 2) * x
  assert.is(yi.data[5], 1 + 4.5 * 5);

  const built = await build(file, 'ordered', 'build');
  assert.is(built.errors.length, 0, built.errors.map((d) => formatDiagnostic(d, { verbose: true })).join('\n'));
  const lib = NativeLibrary.open(built.entries[0].library!, built.entries[0].symbol!);
  try {
    calls.length = 0;
    lib.setCallbacks(hosts);
    const yc = field([3, 2, 2], () => 1);
    lib.run({ x, y: yc, n: 3 });
    assert.equal(calls, expected);
    assert.equal([...yc.data], [...yi.data]);
  } finally {
    lib.close();
  }
});

cb('orch evaluates a scalar callback body itself, with Python semantics', async () => {
  const file = moduleFile(`
CFL = 0.7

@callback
def substeps(umax: float, dx: float, dt: float) -> int:
    n = int(math.ceil(umax * dt / (CFL * dx)))
    if n < 1:
        n = 1
    k = 0
    for i in range(n):
        k += i % 3
    return max(n, k)

@program
def p(x: FloatField, y: FloatField, umax: float, dx: float, dt: float):
    n = substeps(umax, dx, dt)
    axpy(x, y, n)
`);
  const r = await build(file, 'p', 'python');
  const host = Interpreter.hostFunction(r.entries[0].program!.callbacks![0]);
  assert.is(host([12, 2000, 600]), 6);
  assert.is(host([0, 2000, 600]), 1);
  assert.is(host([-1, 1, 1]), 1);
  assert.is(host([100, 1, 1]), 143);
});

cb('a callback that raises ends the run at its line, interpreted and compiled', async () => {
  const file = moduleFile(`
@callback
def check(dt: float) -> None:
    if not dt > 0.0:
        raise ValueError(f"non-positive dt {dt}")

@program
def guarded(x: FloatField, y: FloatField, dt: float):
    axpy(x, y, 1.0)
    check(dt)
    axpy(x, y, dt)
`);
  const py = await build(file, 'guarded', 'python');
  const x = field([2, 2, 2], () => 1);
  const y = field([2, 2, 2], () => 0);
  try {
    new Interpreter(py.entries[0].program!).run({ x, y, dt: -1 });
    assert.unreachable('the interpreter should raise');
  } catch (e) {
    assert.instance(e, OrchError);
    const d = (e as OrchError).diagnostic;
    assert.is(d.code, 'E_CALLBACK_RAISED');
    assert.match(d.message, 'non-positive dt');
    assert.is(d.loc?.line, HEADER.split('\n').length + 4);
  }
  assert.is(y.data[0], 1, 'the stencil before the callback ran, the one after did not');

  const built = await build(file, 'guarded', 'build');
  const lib = NativeLibrary.open(built.entries[0].library!, built.entries[0].symbol!);
  try {
    lib.setCallbacks({ check: Interpreter.hostFunction(built.entries[0].iface!.callbacks![0]) });
    const yc = field([2, 2, 2], () => 0);
    try {
      lib.run({ x, y: yc, dt: -1 });
      assert.unreachable('the library should fail');
    } catch (e) {
      assert.instance(e, OrchError);
      assert.is((e as OrchError).diagnostic.code, 'E_CALLBACK_RAISED');
    }
    assert.is(yc.data[0], 1);
    lib.run({ x, y: yc, dt: 2 });
    assert.is(yc.data[0], 4, 'the handle stays usable after a failed run');
  } finally {
    lib.close();
  }
});

cb('a compiled library refuses to run while a callback is unregistered', async () => {
  const built = await build(moduleFile(ORDER), 'ordered', 'build');
  const lib = NativeLibrary.open(built.entries[0].library!, built.entries[0].symbol!);
  try {
    lib.run({ x: field([2, 2, 2], () => 0), y: field([2, 2, 2], () => 0), n: 1 });
    assert.unreachable('run without callbacks');
  } catch (e) {
    assert.instance(e, OrchError);
    assert.match((e as OrchError).diagnostic.message, /callback 0 \(log\) is not registered/);
  } finally {
    lib.close();
  }
});

cb('a callback whose body is not scalar code builds, and only orch-side hosts refuse it', async () => {
  const file = moduleFile(`
@callback
def report(step: int) -> None:
    print("step", step)

@program
def loud(x: FloatField, y: FloatField):
    report(1)
    axpy(x, y, 1.0)
`);
  const built = await build(file, 'loud', 'build');
  assert.is(built.errors.length, 0);
  const decl = built.entries[0].iface!.callbacks![0];
  assert.is(decl.host, null);
  try {
    Interpreter.hostFunction(decl);
    assert.unreachable('print is not evaluated by orch');
  } catch (e) {
    const d = (e as OrchError).diagnostic;
    assert.is(d.code, 'E_CALLBACK_HOST');
    assert.is(d.loc?.line, HEADER.split('\n').length + 3, 'points at the print');
    assert.match(d.hint ?? '', 'Python');
  }
});

const BAD: [string, string, string, number][] = [
  ['a callback inside an expression', '@callback\ndef f(a: float) -> float:\n    return a\n\n@program\ndef p(x: FloatField, y: FloatField):\n    axpy(x, y, 2.0 * f(1.0))\n', 'E_CALLBACK_CALL', 7],
  ['the result of a callback returning None', '@callback\ndef f(a: float) -> None:\n    pass\n\n@program\ndef p(x: FloatField, y: FloatField):\n    w = f(1.0)\n', 'E_CALLBACK_RESULT', 7],
  ['an unannotated callback parameter', '@callback\ndef f(a) -> None:\n    pass\n\n@program\ndef p(x: FloatField, y: FloatField):\n    f(1.0)\n', 'E_CALLBACK_SIGNATURE', 2],
  ['a field passed to a callback', '@callback\ndef f(a: FloatField) -> None:\n    pass\n\n@program\ndef p(x: FloatField, y: FloatField):\n    f(x)\n', 'E_CALLBACK_SIGNATURE', 2],
  ['a plain Python function called from a program', 'def helper(a):\n    return a\n\n@program\ndef p(x: FloatField, y: FloatField):\n    helper(1.0)\n', 'E_UNKNOWN_CALL', 6],
];

for (const [what, source, code, line] of BAD) {
  cb(`diagnostic at its line: ${what}`, async () => {
    const r = await build(moduleFile(source), 'p', 'python');
    const d = r.errors[0];
    assert.ok(d, `${what} must be an error`);
    assert.is(d.code, code, formatDiagnostic(d));
    assert.is(d.loc?.line, HEADER.split('\n').length - 1 + line, formatDiagnostic(d));
    assert.ok(d.frame && d.hint, 'frame and hint');
  });
}

cb.run();
