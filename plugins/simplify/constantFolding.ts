import { INT_RANGE, isIntDType } from '../../core/ir/dtypes.js';
import type { Expr, PStmt, Program, Stmt, Launch } from '../../core/ir/types.js';
import { flatMapStmts, mapLaunchExprs, mapProgramExprs, mapStmtLists, mapExpr } from '../../core/ir/visit.js';

/**
 * Constant folding and propagation of compile-time values: operations on literals are
 * evaluated exactly as both backends would (IEEE double + - * /, Python // and %, min/max,
 * comparisons), and branches on literal conditions are resolved. Transcendental functions
 * and float32 arithmetic are left alone: the C library could round differently.
 */

const isNum = (e: Expr): e is Extract<Expr, { kind: 'lit' }> & { value: number } => e.kind === 'lit' && typeof e.value === 'number';
const isLit = (e: Expr): e is Extract<Expr, { kind: 'lit' }> => e.kind === 'lit';
const litValue = (e: Extract<Expr, { kind: 'lit' }>): number => (typeof e.value === 'boolean' ? Number(e.value) : e.value);

function lit(value: number, dtype: Expr['dtype']): Expr | null {
  if (dtype === 'bool') return { kind: 'lit', value: value !== 0, dtype };
  if (dtype === 'int8' || dtype === 'int16' || dtype === 'int32' || dtype === 'int64') {
    // a value the type does not hold is left to the run time, which wraps it as numpy does
    if (!Number.isSafeInteger(value) || (dtype !== 'int64' && (value < INT_RANGE[dtype][0] || value > INT_RANGE[dtype][1]))) return null;
    return { kind: 'lit', value, dtype };
  }
  if (dtype === 'float32') return null;
  return { kind: 'lit', value, dtype };
}

function pyMod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

function foldExpr(e: Expr): Expr {
  return mapExpr(e, (x) => {
    switch (x.kind) {
      case 'binary': {
        // integer (e + a) + b  ->  e + (a + b): equal domains then compare equal
        if ((x.op === '+' || x.op === '-') && x.dtype === 'int64' && isNum(x.right) && x.left.kind === 'binary' && (x.left.op === '+' || x.left.op === '-') && isNum(x.left.right)) {
          const c = (x.left.op === '+' ? x.left.right.value : -x.left.right.value) + (x.op === '+' ? x.right.value : -x.right.value);
          if (Number.isSafeInteger(c)) {
            if (c === 0) return x.left.left;
            return { ...x, op: c > 0 ? '+' : '-', left: x.left.left, right: { kind: 'lit', value: Math.abs(c), dtype: 'int64' } };
          }
        }
        if (!isLit(x.left) || !isLit(x.right) || x.left.dtype === 'float32') return x;
        const a = litValue(x.left);
        const b = litValue(x.right);
        const isInt = isIntDType(x.left.dtype);
        let v: number | undefined;
        switch (x.op) {
          case '+':
            v = a + b;
            break;
          case '-':
            v = a - b;
            break;
          case '*':
            v = a * b;
            break;
          case '/':
            v = isInt ? undefined : a / b;
            break;
          case '//':
            v = b === 0 ? undefined : Math.floor(a / b);
            break;
          case '%':
            v = b === 0 ? undefined : pyMod(a, b);
            break;
          case '**':
            // only exact cases: integer powers of integers
            v = isInt && b >= 0 && b <= 62 ? a ** b : undefined;
            break;
          case '<':
            v = Number(a < b);
            break;
          case '<=':
            v = Number(a <= b);
            break;
          case '>':
            v = Number(a > b);
            break;
          case '>=':
            v = Number(a >= b);
            break;
          case '==':
            v = Number(a === b);
            break;
          case '!=':
            v = Number(a !== b);
            break;
          case 'and':
            v = Number(a !== 0 && b !== 0);
            break;
          case 'or':
            v = Number(a !== 0 || b !== 0);
            break;
        }
        return v === undefined ? x : (lit(v, x.dtype) ?? x);
      }
      case 'unary':
        if (!isLit(x.arg) || x.dtype === 'float32') return x;
        if (x.op === 'not') return { kind: 'lit', value: litValue(x.arg) === 0, dtype: 'bool' };
        return lit(x.op === '-' ? -litValue(x.arg) : litValue(x.arg), x.dtype) ?? x;
      case 'cast': {
        if (!isLit(x.arg) || x.arg.dtype === 'float32') return x;
        const v = litValue(x.arg);
        if (!Number.isFinite(v) && x.dtype !== 'float64') return x;
        return lit(isIntDType(x.dtype) ? Math.trunc(v) : v, x.dtype) ?? x;
      }
      case 'ternary':
        return isLit(x.cond) ? (litValue(x.cond) ? x.then : x.else) : x;
      case 'call': {
        if (!x.args.every(isNum) || x.dtype === 'float32') return x;
        const [a, b] = x.args.map((y) => (y as { value: number }).value);
        if (x.fn === 'min') return lit(b < a ? b : a, x.dtype) ?? x;
        if (x.fn === 'max') return lit(a < b ? b : a, x.dtype) ?? x;
        if (x.fn === 'abs') return lit(Math.abs(a), x.dtype) ?? x;
        return x;
      }
      default:
        return x;
    }
  });
}

function foldPoint(stmts: Stmt[]): Stmt[] {
  return flatMapStmts(stmts, (s): Stmt[] => {
    if (s.kind === 'if') {
      const cond = foldExpr(s.cond);
      if (isLit(cond)) return litValue(cond) ? s.then : s.else;
      return [{ ...s, cond }];
    }
    if (s.kind === 'while') {
      const cond = foldExpr(s.cond);
      return isLit(cond) && !litValue(cond) ? [] : [{ ...s, cond }];
    }
    return [s];
  });
}

function foldLaunch(l: Launch): Launch {
  const m = mapLaunchExprs(l, foldExpr);
  return { ...m, loops: m.loops.map((v) => ({ ...v, body: v.body.map((h) => ({ ...h, body: foldPoint(h.body) })) })) };
}

export function constantFolding(p: Program): Program {
  let body = mapProgramExprs(p.body, foldExpr);
  body = mapStmtLists(body, (list) =>
    list.flatMap((s): PStmt[] => {
      if (s.kind === 'if' && isLit(s.cond)) return litValue(s.cond) ? s.then : s.else;
      if (s.kind === 'while' && isLit(s.cond) && !litValue(s.cond)) return [];
      if (s.kind === 'launch') return [foldLaunch(s)];
      return [s];
    }),
  );
  return { ...p, body, arrays: p.arrays.map((a) => (a.shape ? { ...a, shape: a.shape.map(foldExpr) } : a)) };
}
