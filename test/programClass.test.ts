import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import { allocate, cloneArray, type NDArray } from '../core/runtime/ndarray.js';
import { NativeLibrary } from '../core/runtime/NativeLibrary.js';
import { moduleEntries } from '../core/frontend/entries.js';
import { ModuleLoader } from '../core/frontend/ModuleLoader.js';

/**
 * The class form of programs (fixtures/programs/smoother.py): an __init__ that stores
 * stencils, temporaries, constants and a nested component on self, plus a __call__. It
 * must compute exactly what the equivalent function-form program computes.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.resolve(here, '../../fixtures/programs/smoother.py');
const root = mkdtempSync(path.join(os.tmpdir(), 'orch-class-'));
const config = await resolveConfig({ configFile: null, cwd: root });
config.cacheRoot = root;

function compiler() {
  return new Compiler({ ...config, verifyIR: true }, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
}

function inputs(): { q: NDArray; edge: NDArray } {
  const q = allocate('float64', [7, 6, 3]);
  const edge = allocate('float64', [7, 6, 3]);
  for (let n = 0; n < q.data.length; n++) {
    q.data[n] = Math.sin(0.37 * n) + 0.01 * n;
    edge.data[n] = Math.cos(0.11 * n);
  }
  return { q, edge };
}

async function runBoth(file: string, entry: string, defines: Record<string, number>, w: number) {
  const c = compiler();
  const py = await c.build({ modules: [file], entry, externals: {}, defines, mode: 'python' });
  assert.is(py.errors.length, 0, py.errors.map((d) => formatDiagnostic(d)).join('\n'));
  const a = inputs();
  new Interpreter(py.entries[0].program!).run({ ...a, w });
  const built = await c.build({ modules: [file], entry, externals: {}, defines, mode: 'build' });
  assert.is(built.errors.length, 0, built.errors.map((d) => formatDiagnostic(d, { verbose: true })).join('\n'));
  const b = inputs();
  const lib = NativeLibrary.open(built.entries[0].library!, built.entries[0].symbol!);
  try {
    lib.run({ ...b, w });
  } finally {
    lib.close();
  }
  return { interpreted: a, compiled: b, program: py.entries[0].program! };
}

const t = suite('program classes');

t('a program class is an entry of its module, named by the class', () => {
  const names = moduleEntries(new ModuleLoader().load(fixture)).map((e) => e.name);
  assert.ok(names.includes('Smoother'));
  assert.ok(names.includes('smoother_function'));
  assert.not.ok(names.includes('EdgeCopy'), 'an undecorated helper class is not an entry');
});

t('the class form computes what the function form computes, interpreted and compiled', async () => {
  const cls = await runBoth(fixture, 'Smoother', { nx: 7, ny: 6, nz: 3, n_iter: 4, gain: 0.25 }, 0.05);
  const fn = await runBoth(fixture, 'smoother_function', { n_iter: 4, gain: 0.25 }, 0.05);
  assert.equal(cls.program.compiletime, { nx: 7, ny: 6, nz: 3, n_iter: 4, gain: 0.25 });
  assert.equal(cls.program.params.map((p) => p.name), ['q', 'edge', 'w']);
  const untouched = inputs().q;
  assert.ok(cls.interpreted.q.data.some((v, n) => v !== untouched.data[n]), 'the program changed q');
  assert.equal([...cls.interpreted.q.data], [...fn.interpreted.q.data]);
  assert.equal([...cls.compiled.q.data], [...fn.compiled.q.data]);
  assert.equal([...cls.compiled.q.data], [...cls.interpreted.q.data]);
  // the nested component copied gain * edge into both I edges
  assert.is(cls.compiled.q.data[0], 0.25 * Number(cloneArray(inputs().edge).data[0]));
});

t('constructor defaults apply when no define is given', async () => {
  const cls = await runBoth(fixture, 'Smoother', { nx: 7, ny: 6, nz: 3 }, 0.05);
  const fn = await runBoth(fixture, 'smoother_function', {}, 0.05);
  assert.equal([...cls.compiled.q.data], [...fn.compiled.q.data]);
});

const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-class-bad-'));
const HEADER = `from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl.dsl.typing import Float, FloatField
from orch import program, stencil, temporary

@stencil
def scale(q: FloatField, w: Float):
    with computation(PARALLEL), interval(...):
        q = w * q

class Helper:
    def __call__(self, q: FloatField):
        scale(q, 2.0)

`;

const BAD: [string, string, Record<string, number>, string, string, number][] = [
  ['I/O in __init__', '@program\nclass P:\n    def __init__(self):\n        print("hello")\n    def __call__(self, q: FloatField):\n        scale(q, 1.0)\n', {}, 'E_CLASS_INIT', 'expression statement', 4],
  ['a runtime value stored in __init__', '@program\nclass P:\n    def __init__(self):\n        self.q = 1.0\n        self.n = undefined_thing\n    def __call__(self, q: FloatField):\n        scale(q, self.q)\n', {}, 'E_UNKNOWN_NAME', 'undefined_thing', 5],
  ['a loop in __init__', '@program\nclass P:\n    def __init__(self, n: int):\n        for i in range(n):\n            pass\n    def __call__(self, q: FloatField):\n        scale(q, 1.0)\n', { n: 2 }, 'E_CLASS_INIT', 'for', 4],
  ['a misspelled attribute', '@program\nclass P:\n    def __init__(self):\n        self.weight = 2.0\n    def __call__(self, q: FloatField):\n        scale(q, self.wieght)\n', {}, 'E_UNKNOWN_NAME', "did you mean 'weight'", 6],
  ['an object created in __call__', '@program\nclass P:\n    def __call__(self, q: FloatField):\n        h = Helper()\n', {}, 'E_CLASS_INSTANCE', 'Helper', 4],
  ['a constructor argument without a value', '@program\nclass P:\n    def __init__(self, n: int):\n        self.n = n\n    def __call__(self, q: FloatField):\n        scale(q, self.n)\n', {}, 'E_COMPILETIME_MISSING', "'n'", 3],
  ['a class without __call__', '@program\nclass P:\n    def __init__(self):\n        pass\n', {}, 'E_ENTRY_KIND', '__call__', 2],
];

let n = 0;
for (const [what, source, defines, code, text, line] of BAD) {
  t(`diagnostic at its line: ${what}`, async () => {
    const file = path.join(dir, `bad${n++}.py`);
    writeFileSync(file, HEADER + source);
    const r = await compiler().build({ modules: [file], entry: 'P', externals: {}, defines, mode: 'python' });
    const d = r.errors[0];
    assert.ok(d, `${what} must be an error`);
    assert.is(d.code, code, formatDiagnostic(d));
    assert.match(d.message + (d.hint ?? ''), text);
    assert.is(d.loc?.line, HEADER.split('\n').length - 1 + line, formatDiagnostic(d));
  });
}

t.run();
