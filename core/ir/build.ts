import type { Expr } from './types.js';

/**
 * Expression builders for passes and backends. `intOp` builds exactly the node asked for;
 * `add`, `min`, `max`, `lt` and `and` fold literal operands, so bounds stay readable.
 */

/** An int64 literal. */
export function int(value: number): Expr {
  return { kind: 'lit', value, dtype: 'int64' };
}

/** An int64 binary op, unfolded. */
export function intOp(op: '+' | '-' | '*' | '//', left: Expr, right: Expr): Expr {
  return { kind: 'binary', op, left, right, dtype: 'int64' };
}

function litValue(e: Expr): number | undefined {
  return e.kind === 'lit' && typeof e.value === 'number' ? e.value : undefined;
}

/** `a + b` on int64, folded: `x + 0` is `x`, `x + -3` is `x - 3`. */
export function add(a: Expr, b: Expr): Expr {
  const x = litValue(a);
  const y = litValue(b);
  if (x !== undefined && y !== undefined) return int(x + y);
  if (y === 0) return a;
  if (x === 0) return b;
  if (y !== undefined && y < 0) return intOp('-', a, int(-y));
  return intOp('+', a, b);
}

export function min(a: Expr, b: Expr): Expr {
  const x = litValue(a);
  const y = litValue(b);
  if (x !== undefined && y !== undefined) return int(Math.min(x, y));
  return { kind: 'call', fn: 'min', args: [a, b], dtype: 'int64' };
}

export function max(a: Expr, b: Expr): Expr {
  const x = litValue(a);
  const y = litValue(b);
  if (x !== undefined && y !== undefined) return int(Math.max(x, y));
  return { kind: 'call', fn: 'max', args: [a, b], dtype: 'int64' };
}

export function lt(a: Expr, b: Expr): Expr {
  const x = litValue(a);
  const y = litValue(b);
  if (x !== undefined && y !== undefined) return { kind: 'lit', value: x < y, dtype: 'bool' };
  return { kind: 'binary', op: '<', left: a, right: b, dtype: 'bool' };
}

/** The conjunction of `terms`, without the ones that are literally true. */
export function and(terms: Expr[]): Expr {
  const open = terms.filter((t) => !(t.kind === 'lit' && t.value === true));
  if (open.some((t) => t.kind === 'lit' && t.value === false)) return { kind: 'lit', value: false, dtype: 'bool' };
  if (open.length === 0) return { kind: 'lit', value: true, dtype: 'bool' };
  return open.reduce((l, r) => ({ kind: 'binary', op: 'and', left: l, right: r, dtype: 'bool' }));
}

/** Structural equality of two expressions. */
export function sameExpr(a: Expr, b: Expr): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
