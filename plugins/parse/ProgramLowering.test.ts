import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatDiagnostic, OrchError } from '../../core/diagnostics.js';
import { findEntry } from '../../core/frontend/entries.js';
import { lowerEntry } from './lowerEntry.js';
import { ModuleLoader } from '../../core/frontend/ModuleLoader.js';

/**
 * Nothing in a program is silently dropped or turned into host code: every construct orch
 * cannot compile (and that is not a @callback) is a diagnostic at its own line.
 */

const HEADER = `import numpy as np
from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl.dsl.typing import Float, FloatField
from orch import program, stencil, temporary

@stencil
def axpy(x: FloatField, y: FloatField, a: Float):
    with computation(PARALLEL), interval(...):
        y = y + a * x

class Thing:
    pass

@program
def p(x: FloatField, y: FloatField):
    axpy(x, y, 1.0)
`;
const LINE = HEADER.split('\n').length;

const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-program-lowering-'));
let n = 0;

function lower(body: string) {
  const file = path.join(dir, `m${n++}.py`);
  writeFileSync(file, `${HEADER}    ${body}\n`);
  const loader = new ModuleLoader();
  return lowerEntry(loader, findEntry(loader.load(file), 'p'), { externals: {}, defines: {} });
}

/** construct, first line of its body (indented by the test), expected code, message text */
const CASES: [string, string, string, string][] = [
  ['print (I/O)', 'print("step")', 'E_UNKNOWN_CALL', 'host code'],
  ['open (I/O)', 'with open("log.txt") as f:\n        pass', 'E_UNSUPPORTED', 'with'],
  ['a list', 'w = [1.0, 2.0]', 'E_UNSUPPORTED', 'list'],
  ['a dict', 'w = {"a": 1.0}', 'E_UNSUPPORTED', 'dict'],
  ['a comprehension', 'w = [i for i in range(3)]', 'E_UNSUPPORTED', 'comprehension'],
  ['try/except', 'try:\n        pass\n    except Exception:\n        pass', 'E_UNSUPPORTED', 'try'],
  ['a lambda', 'f = lambda a: a', 'E_UNSUPPORTED', 'lambda'],
  ['a closure', 'def inner():\n        pass', 'E_UNSUPPORTED', 'def'],
  ['an import', 'import os', 'E_UNSUPPORTED', 'import'],
  ['a generator', 'yield 1', 'E_UNSUPPORTED', 'yield'],
  ['indexing a field', 'x[0, 0, 0] = 1.0', 'E_ASSIGN_TARGET', 'names'],
  ['arithmetic on a field', 'w = x + 1.0', 'E_NOT_A_VALUE', "'x'"],
  ['a method call on a field', 'x.fill(0.0)', 'E_NOT_A_VALUE', "'x'"],
  ['a numpy function orch does not know', 'w = np.sum(x)', 'E_UNSUPPORTED_BUILTIN', 'np.sum'],
  ['an arbitrary object', 't = Thing()', 'E_CLASS_INSTANCE', 'Thing'],
  ['recursion', 'p(x, y)', 'E_RECURSION', 'recursive'],
  ['returning a value', 'return 1.0', 'E_PROGRAM_STMT', 'return nothing'],
  ['global', 'global G', 'E_UNSUPPORTED', 'global'],
  ['break', 'for i in range(3):\n        break', 'E_UNSUPPORTED', 'break'],
  ['*args unpacking', 'axpy(*(x, y, 1.0))', 'E_UNSUPPORTED', 'unpacking'],
  ['an undefined name', 'axpy(x, zz, 1.0)', 'E_UNKNOWN_NAME', 'zz'],
  ['a string used as a number', 'w = "abc"\n    axpy(x, y, w)', 'E_NOT_A_VALUE', 'abc'],
];

const t = suite('program lowering diagnostics');

for (const [what, body, code, text] of CASES) {
  t(`${what} is an error at its line`, () => {
    try {
      lower(body);
      assert.unreachable(`${what} compiled`);
    } catch (e) {
      if (!(e instanceof OrchError)) throw e;
      const d = e.diagnostic;
      assert.is(d.code, code, formatDiagnostic(d));
      assert.match(d.message, text);
      const firstLine = LINE;
      const lines = body.split('\n').length;
      assert.ok(d.loc && d.loc.line >= firstLine && d.loc.line < firstLine + lines, `reported at line ${d.loc?.line}, the construct is at ${firstLine}: ${formatDiagnostic(d)}`);
      assert.ok(d.frame && d.hint, 'a code frame and a hint');
    }
  });
}

t('the same constructs in a @callback body are allowed (the host runs them)', () => {
  const file = path.join(dir, 'cb.py');
  writeFileSync(
    file,
    `${HEADER.replace('@program', `from orch import callback

@callback
def log(step: int) -> None:
    print("step", step)
    with open("log.txt", "a") as f:
        f.write(str(step))

@program`)}    log(1)\n`,
  );
  const loader = new ModuleLoader();
  const prog = lowerEntry(loader, findEntry(loader.load(file), 'p'), { externals: {}, defines: {} });
  assert.is(prog.callbacks?.length, 1);
  assert.is(prog.callbacks![0].host, null);
});

t('leaving out a parameter with a default is refused, with a hint saying GT4Py allows it', () => {
  const file = path.join(dir, 'optional.py');
  writeFileSync(
    file,
    `${HEADER.replace('@program', `@stencil
def scale(x: FloatField, y: FloatField, extra: FloatField = None, *, a: Float = 2.0):
    with computation(PARALLEL), interval(...):
        y = a * x

@program`)}    scale(x, y, a=3.0)\n`,
  );
  const loader = new ModuleLoader();
  try {
    lowerEntry(loader, findEntry(loader.load(file), 'p'), { externals: {}, defines: {} });
    assert.unreachable('the call compiled');
  } catch (e) {
    if (!(e instanceof OrchError)) throw e;
    assert.is(e.diagnostic.code, 'E_ARG_MISSING', formatDiagnostic(e.diagnostic));
    assert.match(e.diagnostic.message, "'extra'");
    assert.match(e.diagnostic.hint ?? '', /GT4Py lets a caller leave out a parameter with a default/);
  }
});

t.run();
