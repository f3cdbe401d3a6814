import type { BinaryOp, BuiltinFn, DType, Expr } from '../../core/ir/types.js';

/**
 * numpy's promotion rules as GT4Py applies them, with Python literals "weak"
 * (NEP 50): a literal takes the kind of the other operand when it fits.
 */

export function isFloat(d: DType): boolean {
  return d === 'float64' || d === 'float32';
}

export function isInt(d: DType): boolean {
  return d === 'int32' || d === 'int64';
}

const RANK: Record<DType, number> = { bool: 0, int32: 1, int64: 2, float32: 3, float64: 4 };

function isWeakLiteral(e: Expr): boolean {
  return e.kind === 'lit' && typeof e.value === 'number';
}

/** The common dtype of two operands of an arithmetic or comparison op. */
export function commonType(a: Expr, b: Expr): DType {
  const wa = isWeakLiteral(a);
  const wb = isWeakLiteral(b);
  if (wa && !wb) return weakWith(a.dtype, b.dtype);
  if (wb && !wa) return weakWith(b.dtype, a.dtype);
  if (a.dtype === 'float32' && b.dtype === 'int64') return 'float64';
  if (b.dtype === 'float32' && a.dtype === 'int64') return 'float64';
  return RANK[a.dtype] >= RANK[b.dtype] ? a.dtype : b.dtype;
}

function weakWith(lit: DType, strong: DType): DType {
  if (isFloat(lit)) return isFloat(strong) ? strong : 'float64';
  if (isInt(lit)) return strong === 'bool' ? 'int64' : strong;
  return strong;
}

export function cast(e: Expr, dtype: DType): Expr {
  if (e.dtype === dtype) return e;
  if (e.kind === 'lit') {
    const v = typeof e.value === 'boolean' ? Number(e.value) : e.value;
    if (dtype === 'bool') return { kind: 'lit', value: v !== 0, dtype };
    if (isInt(dtype)) return { kind: 'lit', value: Math.trunc(v), dtype };
    return { kind: 'lit', value: dtype === 'float32' ? Math.fround(v) : v, dtype };
  }
  return { kind: 'cast', arg: e, dtype };
}

const COMPARE = new Set<BinaryOp>(['<', '<=', '>', '>=', '==', '!=']);

export function binary(op: BinaryOp, left: Expr, right: Expr): Expr {
  if (op === 'and' || op === 'or') {
    return { kind: 'binary', op, left: cast(left, 'bool'), right: cast(right, 'bool'), dtype: 'bool' };
  }
  let t = commonType(left, right);
  if (t === 'bool' && !COMPARE.has(op)) t = 'int64';
  if (op === '/' && !isFloat(t)) t = 'float64';
  if (op === '**' && isInt(t) && right.kind === 'lit' && typeof right.value === 'number' && right.value < 0) t = 'float64';
  if (op === '**' && isInt(t) && right.kind !== 'lit') t = 'float64';
  const l = cast(left, t);
  const r = cast(right, t);
  return { kind: 'binary', op, left: l, right: r, dtype: COMPARE.has(op) ? 'bool' : t };
}

const FLOAT_RESULT = new Set<BuiltinFn>([
  'sqrt', 'exp', 'log', 'log10', 'pow', 'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'arctan2',
  'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh', 'erf', 'erfc', 'gamma', 'cbrt', 'floor', 'ceil', 'trunc',
  'round', 'round_away_from_zero',
]);
const BOOL_RESULT = new Set<BuiltinFn>(['isnan', 'isinf', 'isfinite']);

export function builtinCall(fn: BuiltinFn, args: Expr[]): Expr {
  if (FLOAT_RESULT.has(fn) || BOOL_RESULT.has(fn)) {
    let t: DType = args.every((a) => a.dtype === 'float32' || isWeakLiteral(a)) && args.some((a) => a.dtype === 'float32') ? 'float32' : 'float64';
    if (args.every(isWeakLiteral)) t = 'float64';
    const cargs = args.map((a) => cast(a, t));
    return { kind: 'call', fn, args: cargs, dtype: BOOL_RESULT.has(fn) ? 'bool' : t };
  }
  // abs, min, max, mod keep the common type of their arguments
  let t: DType = args[0].dtype;
  for (let i = 1; i < args.length; i++) t = commonType({ ...args[0], dtype: t }, args[i]);
  if (args.length === 1) t = args[0].dtype === 'bool' ? 'int64' : args[0].dtype;
  return { kind: 'call', fn, args: args.map((a) => cast(a, t)), dtype: t };
}
