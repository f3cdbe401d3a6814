import { isFloatDType, isIntDType, wrapInt } from '../../core/ir/dtypes.js';
import type { BinaryOp, BuiltinFn, DType, Expr } from '../../core/ir/types.js';

/**
 * Promotion of two typed operands as GT4Py's upcasting does (the later type in its DataType
 * order: bool, int8, int16, int32, int64, float32, float64), with Python literals "weak"
 * (NEP 50): a literal takes the kind of the other operand when it fits, except that an int
 * literal with int8/int16 is int64, GT4Py's literal type.
 */

export const isFloat = isFloatDType;
export const isInt = isIntDType;

/** GT4Py's DataType order: its upcasting takes the later of two operand types. */
const RANK: Record<DType, number> = { bool: 0, int8: 1, int16: 2, int32: 3, int64: 4, float32: 5, float64: 6 };

function isWeakLiteral(e: Expr): boolean {
  return e.kind === 'lit' && typeof e.value === 'number';
}

/** The common dtype of two operands of an arithmetic or comparison op. */
export function commonType(a: Expr, b: Expr): DType {
  const wa = isWeakLiteral(a);
  const wb = isWeakLiteral(b);
  if (wa && !wb) return weakWith(a.dtype, b.dtype);
  if (wb && !wa) return weakWith(b.dtype, a.dtype);
  // GT4Py's upcasting (gtc/passes/gtir_upcaster.py) takes the later type in DataType order for
  // two typed operands: int64 * float32 is float32 there (numpy would widen to float64)
  return RANK[a.dtype] >= RANK[b.dtype] ? a.dtype : b.dtype;
}

function weakWith(lit: DType, strong: DType): DType {
  if (isFloat(lit)) return isFloat(strong) ? strong : 'float64';
  // GT4Py's int literals are int64: int8 + 1 is computed in int64 there, not wrapped in int8
  if (isInt(lit)) return strong === 'bool' || strong === 'int8' || strong === 'int16' ? 'int64' : strong;
  return strong;
}

export function cast(e: Expr, dtype: DType): Expr {
  if (e.dtype === dtype) return e;
  if (e.kind === 'lit') {
    const v = typeof e.value === 'boolean' ? Number(e.value) : e.value;
    if (dtype === 'bool') return { kind: 'lit', value: v !== 0, dtype };
    // an int literal cast to a narrower int wraps as numpy's astype does (int8(300) is 44)
    if (isInt(dtype)) return { kind: 'lit', value: isFloat(e.dtype) ? Math.trunc(v) : wrapInt(Math.trunc(v), dtype), dtype };
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
