import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate, type EvalEnv } from './evaluate.js';
import { lex, Tokens } from './lex.js';
import { ExprParser } from './parseExpr.js';

/** An expression as the IR prints it; `n`, `k` are int64 scalars, `x` a float64 one, `q` a field. */
function expr(text: string) {
  const t = new Tokens(lex(text, '<test>'), '<test>');
  return new ExprParser(t).parse({ field: (n) => (n === 'q' ? 'float64' : undefined), scalar: (n) => (n === 'x' ? 'float64' : ['n', 'k'].includes(n) ? 'int64' : undefined) });
}

const env: EvalEnv = { scalar: (n) => ({ n: 10, k: -7, x: 2.5 })[n], shape: (a, axis) => (a === 'q' ? [12, 8, 5][axis] : undefined) };
const value = (text: string, e: EvalEnv = env) => evaluate(expr(text), e);

test('int64 bounds: floor division and modulo as Python and the generated code, min/max, shapes', () => {
  assert.is(value('(n // 3)'), 3);
  assert.is(value('(k // 2)'), -4);
  assert.is(value('(k % 3)'), 2);
  assert.is(value('max((n - 1), (q.shape[0] + 2))'), 14);
  assert.is(value('min(q.shape[2], 3)'), 3);
  assert.is(value('(-(n * 2))'), -20);
  assert.is(value('int64((x * 3.0))'), 7);
  assert.is(value('(n if (k < 0) else 0)'), 10);
});

test('unknown when it names what the environment does not know, reads a field or divides by zero', () => {
  assert.is(value('(n + k)', { scalar: (n) => (n === 'n' ? 10 : undefined) }), undefined);
  assert.is(value('(q[0, 0, 0] + 1.0)'), undefined);
  assert.is(value('(n // 0)'), undefined);
  assert.is(value('(n % 0)'), undefined);
  assert.is(value('q.shape[0]', { scalar: env.scalar }), undefined);
  assert.is(value('sin(x)'), undefined);
});

test.run();
