import type { Expr } from './types.js';

/** What an expression may name: scalars by name, and the extents of arrays. */
export interface EvalEnv {
  scalar?(name: string): number | undefined;
  shape?(array: string, axis: number): number | undefined;
}

/** The builtins a host-level bound or scalar uses; the transcendental rest never sizes anything. */
const FNS: Partial<Record<string, (...xs: number[]) => number>> = {
  min: Math.min,
  max: Math.max,
  abs: Math.abs,
  floor: Math.floor,
  ceil: Math.ceil,
  trunc: Math.trunc,
  sqrt: Math.sqrt,
  pow: Math.pow,
};

/**
 * The value of a host-level expression (an array's extent, an access bound, a loop limit,
 * a launch's scalar) when everything it names is known from `env`; undefined when it reads
 * a field, names something `env` does not know, or divides by zero. Integer division and
 * modulo floor, as in Python and the generated int64 code; a cast to an integer truncates.
 * The one evaluator of such expressions outside the interpreter (field boundaries, the
 * memory report, the stencil-by-stencil bench).
 */
export function evaluate(e: Expr, env: EvalEnv): number | undefined {
  const ev = (x: Expr) => evaluate(x, env);
  switch (e.kind) {
    case 'lit':
      return Number(e.value);
    case 'scalar':
      return env.scalar?.(e.name);
    case 'shape':
      return env.shape?.(e.name, e.axis);
    case 'cast': {
      const a = ev(e.arg);
      return a === undefined ? undefined : e.dtype.startsWith('int') ? Math.trunc(a) : a;
    }
    case 'unary': {
      const a = ev(e.arg);
      if (a === undefined) return undefined;
      return e.op === '-' ? -a : e.op === 'not' ? Number(!a) : a;
    }
    case 'ternary': {
      const c = ev(e.cond);
      return c === undefined ? undefined : c ? ev(e.then) : ev(e.else);
    }
    case 'call': {
      const f = FNS[e.fn];
      const xs = e.args.map(ev);
      if (!f || xs.some((x) => x === undefined)) return undefined;
      return f(...(xs as number[]));
    }
    case 'binary': {
      const a = ev(e.left);
      const b = ev(e.right);
      return a === undefined || b === undefined ? undefined : binary(e.op, a, b);
    }
    default:
      return undefined;
  }
}

function binary(op: Extract<Expr, { kind: 'binary' }>['op'], a: number, b: number): number | undefined {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    case '//':
      return b === 0 ? undefined : Math.floor(a / b);
    case '%':
      return b === 0 ? undefined : a - b * Math.floor(a / b);
    case '**':
      return a ** b;
    case '<':
      return Number(a < b);
    case '<=':
      return Number(a <= b);
    case '>':
      return Number(a > b);
    case '>=':
      return Number(a >= b);
    case '==':
      return Number(a === b);
    case '!=':
      return Number(a !== b);
    case 'and':
      return Number(a && b);
    case 'or':
      return Number(a || b);
  }
}
