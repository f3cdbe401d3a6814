import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { forRange } from './forRange.js';
import { lex, Tokens } from './lex.js';
import { ExprParser } from './parseExpr.js';
import type { PStmt } from './types.js';

/** A `for` over the bounds as the IR prints them; `n` is an int64 scalar known only at the call. */
function loop(start: string, stop: string, step: string): Extract<PStmt, { kind: 'for' }> {
  const expr = (text: string) => new ExprParser(new Tokens(lex(text, '<test>'), '<test>')).parse({ field: () => undefined, scalar: (n) => (n === 'n' ? 'int64' : undefined) });
  return { kind: 'for', var: 'it', start: expr(start), stop: expr(stop), step: expr(step), body: [], loc: { file: '<test>', line: 1, col: 1 } } as unknown as Extract<PStmt, { kind: 'for' }>;
}

test("iterations as Python's range counts them", () => {
  assert.equal(forRange(loop('0', '3', '1')), { start: 0, step: 1, n: 3 });
  assert.equal(forRange(loop('1', '8', '3')), { start: 1, step: 3, n: 3 });
  assert.equal(forRange(loop('5', '0', '-2')), { start: 5, step: -2, n: 3 });
  assert.equal(forRange(loop('(1 + 1)', '(2 * 3)', '1')), { start: 2, step: 1, n: 4 });
  assert.is(forRange(loop('3', '3', '1'))!.n, 0);
  assert.is(forRange(loop('4', '0', '1'))!.n, 0);
});

test('no range where a bound is unknown before the call, not an integer, or the step is 0', () => {
  assert.is(forRange(loop('0', 'n', '1')), undefined);
  assert.is(forRange(loop('0', '3', '0')), undefined);
  assert.is(forRange(loop('0', '2.5', '1')), undefined);
});

test.run();
