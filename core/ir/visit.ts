import type { Expr, HLoop, HostStmt, Launch, PStmt, Stmt, VLoop } from './types.js';

/**
 * The one traversal of the IR: which expressions and statement lists each node holds,
 * and walks and rewrites built on that. Analyses and passes say what to do at a node and
 * leave the recursion to these, so a new statement kind is handled here once.
 *
 * Point statements (`Stmt`) and program statements (`PStmt`) each have a visitor
 * (`forEachStmt`, `forEachPStmt`: pre-order, `false` from the callback skips the node's
 * children) and rewriters (`mapStmts` maps expressions, `flatMapStmts` replaces statements
 * bottom-up; `mapProgramExprs`, `mapStmtLists` for programs).
 */

/** The sub-expressions directly inside an expression. */
export function exprChildren(e: Expr): Expr[] {
  switch (e.kind) {
    case 'unary':
    case 'cast':
      return [e.arg];
    case 'binary':
      return [e.left, e.right];
    case 'ternary':
      return [e.cond, e.then, e.else];
    case 'call':
      return e.args;
    case 'field':
      return [...(e.kOffset ? [e.kOffset] : []), ...(e.data ?? [])];
    case 'lit':
    case 'scalar':
    case 'shape':
    case 'kindex':
      return [];
  }
}

/** Visits an expression and all its sub-expressions, pre-order. */
export function visitExpr(e: Expr, fn: (e: Expr) => void): void {
  fn(e);
  for (const c of exprChildren(e)) visitExpr(c, fn);
}

/** Rebuilds an expression bottom-up through `fn` (every node is a fresh copy). */
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
    case 'field': {
      const copy = { ...e };
      if (e.kOffset) copy.kOffset = mapExpr(e.kOffset, fn);
      if (e.data) copy.data = e.data.map((d) => mapExpr(d, fn));
      return fn(copy);
    }
    default:
      return fn({ ...e });
  }
}

/** The expressions a point statement holds itself (not those of nested statements). */
export function stmtExprs(s: Stmt): Expr[] {
  switch (s.kind) {
    case 'assign':
      return s.kVar ? [s.kVar, s.value] : [s.value];
    case 'let':
      return [s.value];
    case 'if':
    case 'while':
      return [s.cond];
    case 'check':
    case 'region':
      return [];
  }
}

/** The statement lists nested directly inside a point statement. */
export function stmtLists(s: Stmt): Stmt[][] {
  switch (s.kind) {
    case 'if':
      return [s.then, s.else];
    case 'while':
    case 'region':
      return [s.body];
    default:
      return [];
  }
}

/** Visits a statement tree pre-order; `enter` returning false skips that statement's children. */
export function forEachStmt(stmts: readonly Stmt[], enter: (s: Stmt) => boolean | void): void {
  for (const s of stmts) {
    if (enter(s) === false) continue;
    for (const list of stmtLists(s)) forEachStmt(list, enter);
  }
}

/** Whether some statement of a statement tree, nested ones included, satisfies `pred`. */
export function someStmt(stmts: readonly Stmt[], pred: (s: Stmt) => boolean): boolean {
  return stmts.some((s) => pred(s) || stmtLists(s).some((l) => someStmt(l, pred)));
}

/** Visits every expression node of a statement tree (conditions included). */
export function forEachExpr(stmts: readonly Stmt[], fn: (e: Expr) => void): void {
  forEachStmt(stmts, (s) => {
    for (const e of stmtExprs(s)) visitExpr(e, fn);
  });
}

/** Maps every expression of a statement tree, and optionally the arrays written and checked. */
export function mapStmts(stmts: readonly Stmt[], fn: (e: Expr) => Expr, target: (name: string) => string = (n) => n): Stmt[] {
  return stmts.map((s): Stmt => {
    switch (s.kind) {
      case 'assign':
        return { ...s, target: target(s.target), value: mapExpr(s.value, fn), ...(s.kVar ? { kVar: mapExpr(s.kVar, fn) } : {}) };
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

/** Rebuilds a statement tree bottom-up: nested lists first, then each statement through `fn`. */
export function flatMapStmts(stmts: readonly Stmt[], fn: (s: Stmt) => Stmt[]): Stmt[] {
  return stmts.flatMap((s): Stmt[] => {
    switch (s.kind) {
      case 'if':
        return fn({ ...s, then: flatMapStmts(s.then, fn), else: flatMapStmts(s.else, fn) });
      case 'while':
      case 'region':
        return fn({ ...s, body: flatMapStmts(s.body, fn) });
      default:
        return fn(s);
    }
  });
}

/** Applies `fn` to every statement list of a point statement tree (nested lists first). */
export function mapStmtBlocks(stmts: readonly Stmt[], fn: (list: Stmt[]) => Stmt[]): Stmt[] {
  return fn(
    stmts.map((s): Stmt => {
      switch (s.kind) {
        case 'if':
          return { ...s, then: mapStmtBlocks(s.then, fn), else: mapStmtBlocks(s.else, fn) };
        case 'while':
        case 'region':
          return { ...s, body: mapStmtBlocks(s.body, fn) };
        default:
          return s;
      }
    }),
  );
}

/** The statement lists nested directly inside a program statement (launch bodies are point level). */
export function pstmtLists(s: PStmt): PStmt[][] {
  switch (s.kind) {
    case 'for':
    case 'while':
      return [s.body];
    case 'if':
      return [s.then, s.else];
    default:
      return [];
  }
}

/**
 * Rebuilds program statements bottom-up: nested lists first, then each statement through
 * `fn` (launch bodies are point level and left alone), so statements are met in program order.
 */
export function flatMapPStmts(stmts: readonly PStmt[], fn: (s: PStmt) => PStmt[]): PStmt[] {
  return stmts.flatMap((s): PStmt[] => {
    switch (s.kind) {
      case 'for':
      case 'while':
        return fn({ ...s, body: flatMapPStmts(s.body, fn) });
      case 'if':
        return fn({ ...s, then: flatMapPStmts(s.then, fn), else: flatMapPStmts(s.else, fn) });
      default:
        return fn(s);
    }
  });
}

/** Visits program statements pre-order; `enter` returning false skips that statement's children. */
export function forEachPStmt(stmts: readonly PStmt[], enter: (s: PStmt) => boolean | void): void {
  for (const s of stmts) {
    if (enter(s) === false) continue;
    for (const list of pstmtLists(s)) forEachPStmt(list, enter);
  }
}

/** Whether some program statement, nested ones included, satisfies `pred`. */
export function somePStmt(stmts: readonly PStmt[], pred: (s: PStmt) => boolean): boolean {
  return stmts.some((s) => pred(s) || pstmtLists(s).some((l) => somePStmt(l, pred)));
}

/** Every launch of a program, in program order. */
export function launches(stmts: readonly PStmt[]): Launch[] {
  const out: Launch[] = [];
  forEachPStmt(stmts, (s) => {
    if (s.kind === 'launch') out.push(s);
  });
  return out;
}

/** Every loop nest of a launch, with its vertical loop. */
export function forEachHLoop(l: Launch, fn: (h: HLoop, v: VLoop) => void): void {
  for (const v of l.loops) for (const h of v.body) fn(h, v);
}

function mapRange(r: { lo: Expr; hi: Expr }, fn: (e: Expr) => Expr) {
  return { lo: mapExpr(r.lo, fn), hi: mapExpr(r.hi, fn) };
}

/** Maps every expression of a launch: domain, origins, requirements, loop ranges and bodies. */
export function mapLaunchExprs(l: Launch, fn: (e: Expr) => Expr): Launch {
  const origins: Record<string, Expr[]> = {};
  for (const [k, v] of Object.entries(l.origins)) origins[k] = v.map((e) => mapExpr(e, fn));
  return {
    ...l,
    domain: l.domain.map((e) => mapExpr(e, fn)) as Launch['domain'],
    origins,
    ...(l.requires ? { requires: l.requires.map((r) => ({ ...r, cond: mapExpr(r.cond, fn), args: r.args.map((a) => mapExpr(a, fn)) })) } : {}),
    loops: l.loops.map((v): VLoop => ({ ...v, k: mapRange(v.k, fn), body: v.body.map((h): HLoop => ({ ...h, i: mapRange(h.i, fn), j: mapRange(h.j, fn), body: mapStmts(h.body, fn) })) })),
  };
}

/** Maps every expression of program statements, launches included. */
export function mapProgramExprs(stmts: readonly PStmt[], fn: (e: Expr) => Expr): PStmt[] {
  return stmts.map((s): PStmt => {
    switch (s.kind) {
      case 'set':
        return { ...s, value: mapExpr(s.value, fn) };
      case 'for':
        return { ...s, start: mapExpr(s.start, fn), stop: mapExpr(s.stop, fn), step: mapExpr(s.step, fn), body: mapProgramExprs(s.body, fn) };
      case 'while':
        return { ...s, cond: mapExpr(s.cond, fn), body: mapProgramExprs(s.body, fn) };
      case 'if':
        return { ...s, cond: mapExpr(s.cond, fn), then: mapProgramExprs(s.then, fn), else: mapProgramExprs(s.else, fn) };
      case 'launch':
        return mapLaunchExprs(s, fn);
      case 'callback':
        return { ...s, args: s.args.map((a) => mapExpr(a, fn)) };
      case 'halo':
        return s;
      case 'call': {
        const scalars: Record<string, Expr> = {};
        for (const [k, v] of Object.entries(s.scalars)) scalars[k] = mapExpr(v, fn);
        const origins: Record<string, Expr[]> = {};
        for (const [k, v] of Object.entries(s.origins)) origins[k] = v.map((e) => mapExpr(e, fn));
        return { ...s, scalars, origins, domain: s.domain.map((e) => mapExpr(e, fn)) as typeof s.domain };
      }
    }
  });
}

/** Visits every expression node of program statements, launches included. */
export function forEachProgramExpr(stmts: readonly PStmt[], fn: (e: Expr) => void): void {
  mapProgramExprs(stmts, (e) => {
    fn(e);
    return e;
  });
}

/** Applies `fn` to every statement list of a program body (nested lists first). */
export function mapStmtLists(stmts: readonly PStmt[], fn: (list: PStmt[]) => PStmt[]): PStmt[] {
  const inner = stmts.map((s): PStmt => {
    switch (s.kind) {
      case 'for':
      case 'while':
        return { ...s, body: mapStmtLists(s.body, fn) };
      case 'if':
        return { ...s, then: mapStmtLists(s.then, fn), else: mapStmtLists(s.else, fn) };
      default:
        return s;
    }
  });
  return fn(inner);
}

/** Visits callback statements pre-order; `enter` returning false skips that statement's children. */
export function forEachHostStmt(stmts: readonly HostStmt[], enter: (s: HostStmt) => boolean | void): void {
  for (const s of stmts) {
    if (enter(s) === false) continue;
    const lists = s.kind === 'if' ? [s.then, s.else] : s.kind === 'while' || s.kind === 'for' ? [s.body] : [];
    for (const list of lists) forEachHostStmt(list, enter);
  }
}
