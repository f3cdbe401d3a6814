import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OrchError } from '../diagnostics.js';
import type { PyExpr } from './ast.js';
import { parsePython } from './parse.js';

function expr(src: string): PyExpr {
  const m = parsePython('/virtual/expr.py', `x = ${src}\n`);
  const s = m.body[0];
  if (s.t !== 'assign') throw new Error('not an assignment');
  return s.value;
}

/** Fully parenthesized form, to check precedence. */
function show(e: PyExpr): string {
  switch (e.t) {
    case 'name':
      return e.id;
    case 'num':
      return String(e.value);
    case 'boolop':
    case 'binop':
    case 'compare':
      return `(${show(e.left)} ${e.op} ${show(e.right)})`;
    case 'unary':
      return `(${e.op} ${show(e.operand)})`;
    case 'ifexp':
      return `(${show(e.body)} if ${show(e.test)} else ${show(e.orelse)})`;
    case 'subscript':
      return `${show(e.value)}[${e.index.map(show).join(', ')}]`;
    case 'call':
      return `${show(e.func)}(${e.args.map(show).join(', ')})`;
    case 'attr':
      return `${show(e.value)}.${e.attr}`;
    default:
      return e.t;
  }
}

test('not binds tighter than and/or, as in Python', () => {
  assert.is(show(expr('not a or b')), '((not a) or b)');
  assert.is(show(expr('not a and b or c')), '(((not a) and b) or c)');
  assert.is(show(expr('a or not b and c')), '(a or ((not b) and c))');
  assert.is(show(expr('not (a or b)')), '(not (a or b))');
  assert.is(show(expr('not a == b')), '(not (a == b))');
});

test('chained comparisons expand to and', () => {
  assert.is(show(expr('a < b < c')), '((a < b) and (b < c))');
});

test('arithmetic precedence and offsets', () => {
  assert.is(show(expr('a + b * c ** -d')), '(a + (b * (c ** (- d))))');
  assert.is(show(expr('q[1, 0, -1] if q > 0.0 else -q')), '(q[1, 0, (- 1)] if (q > 0) else (- q))');
  assert.is(show(expr('gtscript.I[0] + 3')), '(gtscript.I[0] + 3)');
});

test('locations are 1-based line and column', () => {
  const m = parsePython('/virtual/loc.py', 'a = 1\nif a:\n    b = foo(a)\n');
  const s = m.body[1];
  assert.is(s.t, 'if');
  if (s.t !== 'if') return;
  const inner = s.body[0];
  assert.equal([inner.loc.line, inner.loc.col], [3, 5]);
});

test('a syntax error is a located E_SYNTAX diagnostic with a frame', () => {
  try {
    parsePython('/virtual/bad.py', 'def f(:\n    pass\n');
    assert.unreachable('should have thrown');
  } catch (e) {
    assert.instance(e, OrchError);
    const d = (e as OrchError).diagnostic;
    assert.is(d.code, 'E_SYNTAX');
    assert.is(d.loc?.line, 1);
    assert.match(d.frame ?? '', '^');
    assert.ok(d.hint);
  }
});

test('constructs outside gtscript parse into unsupported nodes with their extent', () => {
  const e = expr('[1, 2]');
  assert.is(e.t, 'list', 'lists are parsed (module code uses them) and rejected in stencils');
  if (e.t === 'list') {
    assert.is(e.elts.length, 2);
    assert.is(e.length, 6);
  }
  assert.is(expr('[*a]').t, 'unsupported');
  assert.is(expr('lambda: 1').t, 'unsupported');
  assert.is(expr('{1: 2}').t, 'dict');
});

test('imports, decorators and keyword-only parameters', () => {
  const m = parsePython('/virtual/m.py', 'from . import a as b\nimport x.y as z\n@gtscript.function\ndef f(q, *, k=2):\n    return q\n');
  const [imp, imp2, def] = m.body;
  assert.is(imp.t === 'importfrom' && imp.level, 1);
  assert.is(imp2.t === 'import' && imp2.names[0].name, 'x.y');
  assert.ok(def.t === 'def' && def.decorators.length === 1 && def.params[1].kind === 'kwonly');
});

test.run();
