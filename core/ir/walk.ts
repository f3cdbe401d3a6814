import type { Expr, Offset, Stmt } from './types.js';

/** Visits every expression of a statement tree (conditions included). */
export function forEachExpr(stmts: Stmt[], fn: (e: Expr) => void): void {
  for (const s of stmts) {
    switch (s.kind) {
      case 'assign':
      case 'let':
        visitExpr(s.value, fn);
        break;
      case 'check':
        break;
      case 'if':
        visitExpr(s.cond, fn);
        forEachExpr(s.then, fn);
        forEachExpr(s.else, fn);
        break;
      case 'while':
        visitExpr(s.cond, fn);
        forEachExpr(s.body, fn);
        break;
      case 'region':
        forEachExpr(s.body, fn);
        break;
    }
  }
}

export function visitExpr(e: Expr, fn: (e: Expr) => void): void {
  fn(e);
  switch (e.kind) {
    case 'unary':
    case 'cast':
      visitExpr(e.arg, fn);
      break;
    case 'binary':
      visitExpr(e.left, fn);
      visitExpr(e.right, fn);
      break;
    case 'ternary':
      visitExpr(e.cond, fn);
      visitExpr(e.then, fn);
      visitExpr(e.else, fn);
      break;
    case 'call':
      e.args.forEach((a) => visitExpr(a, fn));
      break;
    case 'field':
      if (e.kOffset) visitExpr(e.kOffset, fn);
      break;
    default:
      break;
  }
}

/** Rebuilds an expression bottom-up through `fn`. */
export function mapExpr(e: Expr, fn: (e: Expr) => Expr): Expr {
  switch (e.kind) {
    case 'unary':
    case 'cast':
      return fn({ ...e, arg: mapExpr(e.arg, fn) });
    case 'binary':
      return fn({ ...e, left: mapExpr(e.left, fn), right: mapExpr(e.right, fn) });
    case 'ternary':
      return fn({ ...e, cond: mapExpr(e.cond, fn), then: mapExpr(e.then, fn), else: mapExpr(e.else, fn) });
    case 'call':
      return fn({ ...e, args: e.args.map((a) => mapExpr(a, fn)) });
    case 'field':
      return fn(e.kOffset ? { ...e, kOffset: mapExpr(e.kOffset, fn) } : { ...e });
    default:
      return fn({ ...e });
  }
}

export function mapStmts(stmts: Stmt[], fn: (e: Expr) => Expr, target: (name: string) => string = (n) => n): Stmt[] {
  return stmts.map((s): Stmt => {
    switch (s.kind) {
      case 'assign':
        return { ...s, target: target(s.target), value: mapExpr(s.value, fn) };
      case 'let':
        return { ...s, value: mapExpr(s.value, fn) };
      case 'check':
        return { ...s, target: target(s.target) };
      case 'if':
        return { ...s, cond: mapExpr(s.cond, fn), then: mapStmts(s.then, fn, target), else: mapStmts(s.else, fn, target) };
      case 'while':
        return { ...s, cond: mapExpr(s.cond, fn), body: mapStmts(s.body, fn, target) };
      case 'region':
        return { ...s, body: mapStmts(s.body, fn, target) };
    }
  });
}

export interface Access {
  name: string;
  offset: Offset;
  /** The read also has a variable K offset (added to `offset[2]` at run time). */
  variableK: boolean;
}

/** Field reads of a statement tree. */
export function reads(stmts: Stmt[]): Access[] {
  const out: Access[] = [];
  forEachExpr(stmts, (e) => {
    if (e.kind === 'field') out.push({ name: e.name, offset: e.offset, variableK: e.kOffset !== undefined });
  });
  return out;
}

/** Arrays the debug checks of a statement tree check. */
export function checkTargets(stmts: readonly Stmt[], out = new Set<string>()): Set<string> {
  for (const s of stmts) {
    if (s.kind === 'check') out.add(s.target);
    else if (s.kind === 'if') {
      checkTargets(s.then, out);
      checkTargets(s.else, out);
    } else if (s.kind === 'while' || s.kind === 'region') checkTargets(s.body, out);
  }
  return out;
}

/** Whether a statement tree reads, writes or checks array `name`. */
export function touches(stmts: Stmt[], name: string): boolean {
  return writes(stmts).has(name) || reads(stmts).some((r) => r.name === name) || checkTargets(stmts).has(name);
}

/** Fields assigned anywhere in a statement tree. */
export function writes(stmts: Stmt[], out = new Set<string>()): Set<string> {
  for (const s of stmts) {
    if (s.kind === 'assign') out.add(s.target);
    else if (s.kind === 'if') {
      writes(s.then, out);
      writes(s.else, out);
    } else if (s.kind === 'while' || s.kind === 'region') writes(s.body, out);
  }
  return out;
}
