import type { Expr, HLoop, PStmt, Program, Stmt, VLoop } from './types.js';
import { mapExpr } from './walk.js';

/**
 * Whole-program rewriting for passes: every expression of a program (host and point
 * level) mapped through one function, and visitors over launches and loop nests.
 */

export function sameExpr(a: Expr, b: Expr): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export type Launch = Extract<PStmt, { kind: 'launch' }>;

/** Maps every expression of point statements (conditions included). */
export function mapPointExprs(stmts: Stmt[], fn: (e: Expr) => Expr): Stmt[] {
  return stmts.map((s): Stmt => {
    switch (s.kind) {
      case 'assign':
      case 'let':
        return { ...s, value: mapExpr(s.value, fn) };
      case 'if':
        return { ...s, cond: mapExpr(s.cond, fn), then: mapPointExprs(s.then, fn), else: mapPointExprs(s.else, fn) };
      case 'while':
        return { ...s, cond: mapExpr(s.cond, fn), body: mapPointExprs(s.body, fn) };
      case 'region':
        return { ...s, body: mapPointExprs(s.body, fn) };
      case 'check':
        return s;
    }
  });
}

function mapRange(r: { lo: Expr; hi: Expr }, fn: (e: Expr) => Expr) {
  return { lo: mapExpr(r.lo, fn), hi: mapExpr(r.hi, fn) };
}

export function mapLaunchExprs(l: Launch, fn: (e: Expr) => Expr): Launch {
  const origins: Record<string, Expr[]> = {};
  for (const [k, v] of Object.entries(l.origins)) origins[k] = v.map((e) => mapExpr(e, fn));
  return {
    ...l,
    domain: l.domain.map((e) => mapExpr(e, fn)) as Launch['domain'],
    origins,
    ...(l.requires ? { requires: l.requires.map((r) => ({ ...r, cond: mapExpr(r.cond, fn), args: r.args.map((a) => mapExpr(a, fn)) })) } : {}),
    loops: l.loops.map((v): VLoop => ({ ...v, k: mapRange(v.k, fn), body: v.body.map((h): HLoop => ({ ...h, i: mapRange(h.i, fn), j: mapRange(h.j, fn), body: mapPointExprs(h.body, fn) })) })),
  };
}

/** Maps every expression of program statements, launches included. */
export function mapProgramExprs(stmts: PStmt[], fn: (e: Expr) => Expr): PStmt[] {
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

/** Applies `fn` to every statement list of a program body (nested lists first). */
export function mapStmtLists(stmts: PStmt[], fn: (list: PStmt[]) => PStmt[]): PStmt[] {
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

/** Every launch of a program, in program order. */
export function launches(stmts: PStmt[], out: Launch[] = []): Launch[] {
  for (const s of stmts) {
    if (s.kind === 'launch') out.push(s);
    else if (s.kind === 'for' || s.kind === 'while') launches(s.body, out);
    else if (s.kind === 'if') {
      launches(s.then, out);
      launches(s.else, out);
    }
  }
  return out;
}

/** Names read anywhere: scalars (including point locals) and arrays (fields and shapes). */
/** Arrays that tiled launches keep per tile (tiling pass), by name. */
export function tileLocalNames(stmts: PStmt[]): Set<string> {
  return new Set(launches(stmts).flatMap((l) => l.tile?.local.map((x) => x.name) ?? []));
}

export function namesRead(p: Program): { scalars: Set<string>; arrays: Set<string> } {
  const scalars = new Set<string>();
  const arrays = new Set<string>();
  const visit = (e: Expr): Expr => {
    if (e.kind === 'scalar') scalars.add(e.name);
    else if (e.kind === 'field' || e.kind === 'shape') arrays.add(e.name);
    return e;
  };
  mapProgramExprs(p.body, visit);
  for (const a of p.arrays) a.shape?.forEach((e) => mapExpr(e, visit));
  const checks = (stmts: Stmt[]) => {
    for (const s of stmts) {
      if (s.kind === 'check') arrays.add(s.target);
      else if (s.kind === 'if') {
        checks(s.then);
        checks(s.else);
      } else if (s.kind === 'while' || s.kind === 'region') checks(s.body);
    }
  };
  for (const l of launches(p.body)) for (const v of l.loops) for (const h of v.body) checks(h.body);
  const loopVars = (stmts: PStmt[]) => {
    for (const s of stmts) {
      if (s.kind === 'call') for (const a of Object.values(s.fields)) arrays.add(a);
      // an exchange reads what it sends: the fields stay live up to it
      if (s.kind === 'halo') for (const a of s.fields) arrays.add(a);
      if (s.kind === 'for') {
        scalars.add(s.var);
        loopVars(s.body);
      } else if (s.kind === 'while') loopVars(s.body);
      else if (s.kind === 'if') {
        loopVars(s.then);
        loopVars(s.else);
      }
    }
  };
  loopVars(p.body);
  return { scalars, arrays };
}
