import { INT_RANGE, isFloatDType, isIntDType, wrapInt } from '../ir/dtypes.js';
import type { DType, Expr, Offset, SourceLoc } from '../ir/types.js';
import { erf, erfc, gamma, roundAwayFromZero, roundHalfEven } from './mathFunctions.js';

/**
 * The interpreter's expressions, compiled once per run to closures over the scope they
 * read (scalars' cells, arrays, the current point), with Python/numpy semantics: casts
 * truncate and round as numpy does, float32 results round after every operation.
 */

export type Ev = () => number;

/** What expressions read; each lookup throws for a name the program does not declare. */
export interface ExprScope {
  scalar(name: string): { v: number };
  array(name: string): { data: ArrayLike<number>; shape: number[] };
  /**
   * The element index of array `name` at `offset` (plus a variable K offset) from the
   * current point, at data index `data` when the array has data dimensions.
   */
  index(name: string, offset: Offset, kOffset: Ev | undefined, loc: SourceLoc | undefined, data?: Ev[]): () => number;
  /** The K index of the current point, counted from the domain's first level. */
  kIndex(): Ev;
}

/** A value converted to `dtype` as numpy's astype does. */
export function coerce(v: number, dtype: DType): number {
  switch (dtype) {
    case 'bool':
      return v !== 0 ? 1 : 0;
    case 'int8':
    case 'int16':
      return wrapInt(Math.trunc(v), dtype);
    case 'int32':
    case 'int64':
      return Math.trunc(v);
    case 'float32':
      return Math.fround(v);
    default:
      return v;
  }
}

export function pyMod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

export function compileExpr(e: Expr, scope: ExprScope): Ev {
  const compile = (x: Expr): Ev => compileExpr(x, scope);
  switch (e.kind) {
    case 'lit': {
      const v = typeof e.value === 'boolean' ? Number(e.value) : e.value;
      return () => v;
    }
    case 'scalar': {
      const s = scope.scalar(e.name);
      return () => s.v;
    }
    case 'shape': {
      const st = scope.array(e.name);
      return () => st.shape[e.axis];
    }
    case 'kindex':
      return scope.kIndex();
    case 'field': {
      const st = scope.array(e.name);
      const idx = scope.index(e.name, e.offset, e.kOffset && compile(e.kOffset), e.loc, e.data?.map(compile));
      return () => st.data[idx()];
    }
    case 'cast': {
      const a = compile(e.arg);
      const d = e.dtype;
      if (isFloatDType(e.arg.dtype) && isIntDType(d)) return () => floatToInt(a(), d);
      if (isIntDType(d)) return () => wrapInt(Math.trunc(a()), d);
      return () => coerce(a(), d);
    }
    case 'unary': {
      const a = compile(e.arg);
      if (e.op === 'not') return () => (a() ? 0 : 1);
      if (e.op === '-') return e.dtype === 'float32' ? () => Math.fround(-a()) : wrapsIn(e.dtype) ? () => wrapInt(-a(), e.dtype) : () => -a();
      return a;
    }
    case 'ternary': {
      const c = compile(e.cond);
      const a = compile(e.then);
      const b = compile(e.else);
      return () => (c() ? a() : b());
    }
    case 'binary':
      return binary(e, compile);
    case 'call':
      return call(e, compile);
  }
}

function binary(e: Extract<Expr, { kind: 'binary' }>, compile: (x: Expr) => Ev): Ev {
  const a = compile(e.left);
  const b = compile(e.right);
  const isInt = isIntDType(e.left.dtype);
  const f32 = e.dtype === 'float32';
  const d = e.dtype;
  // float32 rounds each result; int8, int16 and int32 wrap as numpy's (and the C++ code's) do
  const r = (f: Ev): Ev => (f32 ? () => Math.fround(f()) : wrapsIn(d) ? () => wrapInt(f(), d) : f);
  switch (e.op) {
    case '+':
      return r(() => a() + b());
    case '-':
      return r(() => a() - b());
    case '*':
      // an int32 product may pass 2^53, where doubles are no longer exact
      return d === 'int32' ? () => Math.imul(a(), b()) : r(() => a() * b());
    case '/':
      return r(() => a() / b());
    case '//':
      return r(() => Math.floor(a() / b()));
    case '%':
      return r(() => pyMod(a(), b()));
    case '**':
      return isInt ? (wrapsIn(d) ? () => wrapIntPow(a(), b(), d) : () => intPow(a(), b())) : r(() => Math.pow(a(), b()));
    case '<':
      return () => (a() < b() ? 1 : 0);
    case '<=':
      return () => (a() <= b() ? 1 : 0);
    case '>':
      return () => (a() > b() ? 1 : 0);
    case '>=':
      return () => (a() >= b() ? 1 : 0);
    case '==':
      return () => (a() === b() ? 1 : 0);
    case '!=':
      return () => (a() !== b() ? 1 : 0);
    case 'and':
      return () => (a() && b() ? 1 : 0);
    case 'or':
      return () => (a() || b() ? 1 : 0);
  }
}

function call(e: Extract<Expr, { kind: 'call' }>, compile: (x: Expr) => Ev): Ev {
  const args = e.args.map((x) => compile(x));
  const [a, b] = args;
  const f32 = e.dtype === 'float32';
  const r = (f: Ev): Ev => (f32 ? () => Math.fround(f()) : f);
  switch (e.fn) {
    case 'abs':
      return wrapsIn(e.dtype) ? () => wrapInt(Math.abs(a()), e.dtype) : () => Math.abs(a());
    case 'min':
      return () => {
        const x = a();
        const y = b();
        return y < x ? y : x;
      };
    case 'max':
      return () => {
        const x = a();
        const y = b();
        return x < y ? y : x;
      };
    case 'mod':
      return () => pyMod(a(), b());
    case 'pow':
      return r(() => Math.pow(a(), b()));
    case 'arctan2':
      return r(() => Math.atan2(a(), b()));
    case 'isnan':
      return () => (Number.isNaN(a()) ? 1 : 0);
    case 'isinf':
      return () => {
        const x = a();
        return x === Infinity || x === -Infinity ? 1 : 0;
      };
    case 'isfinite':
      return () => (Number.isFinite(a()) ? 1 : 0);
    default: {
      const f = UNARY_MATH[e.fn];
      if (!f) throw new Error(`interpreter: no implementation of ${e.fn}`);
      return r(() => f(a()));
    }
  }
}

const UNARY_MATH: Record<string, (x: number) => number> = {
  sqrt: Math.sqrt,
  exp: Math.exp,
  log: Math.log,
  log10: Math.log10,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  arcsin: Math.asin,
  arccos: Math.acos,
  arctan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  arcsinh: Math.asinh,
  arccosh: Math.acosh,
  arctanh: Math.atanh,
  floor: Math.floor,
  ceil: Math.ceil,
  trunc: Math.trunc,
  round: roundHalfEven,
  round_away_from_zero: roundAwayFromZero,
  cbrt: Math.cbrt,
  erf,
  erfc,
  gamma,
};

/** Integer dtypes whose arithmetic the interpreter wraps (int64 keeps doubles, as before). */
function wrapsIn(d: DType): boolean {
  return d === 'int8' || d === 'int16' || d === 'int32';
}

/** `a ** b` in a wrapping integer dtype, wrapped after each product as the C++ code's ipow is. */
function wrapIntPow(a: number, b: number, d: DType): number {
  let r = 1;
  for (let i = 0; i < b; i++) r = wrapInt(d === 'int32' ? Math.imul(r, a) : r * a, d);
  return r;
}

/** float -> int as the C++ code's orch::ftoi: truncation toward zero, saturating, NaN -> 0. */
function floatToInt(v: number, d: DType): number {
  if (Number.isNaN(v)) return 0;
  const [lo, hi] = INT_RANGE[d as keyof typeof INT_RANGE];
  return v <= lo ? lo : v >= hi ? hi : Math.trunc(v);
}

function intPow(a: number, b: number): number {
  let r = 1;
  for (let i = 0; i < b; i++) r *= a;
  return r;
}
