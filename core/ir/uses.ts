import type { Expr, Offset, Program, PStmt, Stmt } from './types.js';
import { forEachExpr, forEachHLoop, forEachProgramExpr, forEachPStmt, forEachStmt, launches, visitExpr } from './visit.js';

/** Which arrays and scalars IR reads, writes and checks (traversal in visit.ts). */

export interface Access {
  name: string;
  offset: Offset;
  /** The read also has a variable K offset (added to `offset[2]` at run time). */
  variableK: boolean;
  /** The read has a data index computed at run time (checked as it reads, like variableK). */
  computedData: boolean;
}

/** Field reads of a statement tree. */
export function reads(stmts: readonly Stmt[]): Access[] {
  const out: Access[] = [];
  forEachExpr(stmts, (e) => {
    if (e.kind === 'field') out.push({ name: e.name, offset: e.offset, variableK: e.kOffset !== undefined, computedData: !!e.data?.some((d) => d.kind !== 'lit') });
  });
  return out;
}

/** Arrays a statement tree reads or writes at a variable K offset (checked as they happen). */
export function variableKNames(stmts: readonly Stmt[]): Set<string> {
  const out = new Set(reads(stmts).filter((r) => r.variableK).map((r) => r.name));
  forEachStmt(stmts, (s) => {
    if (s.kind === 'assign' && s.kVar) out.add(s.target);
  });
  return out;
}

/** Fields assigned anywhere in a statement tree. */
export function writes(stmts: readonly Stmt[], out = new Set<string>()): Set<string> {
  forEachStmt(stmts, (s) => {
    if (s.kind === 'assign') out.add(s.target);
  });
  return out;
}

/** Arrays the debug checks of a statement tree check. */
export function checkTargets(stmts: readonly Stmt[], out = new Set<string>()): Set<string> {
  forEachStmt(stmts, (s) => {
    if (s.kind === 'check') out.add(s.target);
  });
  return out;
}

/** Point locals a statement tree assigns (`let`). */
export function letNames(stmts: readonly Stmt[], out = new Set<string>()): Set<string> {
  forEachStmt(stmts, (s) => {
    if (s.kind === 'let') out.add(s.name);
  });
  return out;
}

/** Whether a statement tree reads, writes or checks array `name`. */
export function touches(stmts: readonly Stmt[], name: string): boolean {
  return writes(stmts).has(name) || reads(stmts).some((r) => r.name === name) || checkTargets(stmts).has(name);
}

/** Arrays that tiled launches keep per tile (tiling pass), by name. */
export function tileLocalNames(stmts: readonly PStmt[]): Set<string> {
  return new Set(launches(stmts).flatMap((l) => l.tile?.local.map((x) => x.name) ?? []));
}

/** Names read anywhere: scalars (including point locals and loop variables) and arrays (fields, shapes, checks, call arguments). */
export function namesRead(p: Program): { scalars: Set<string>; arrays: Set<string> } {
  const scalars = new Set<string>();
  const arrays = new Set<string>();
  const visit = (e: Expr): void => {
    if (e.kind === 'scalar') scalars.add(e.name);
    else if (e.kind === 'field' || e.kind === 'shape') arrays.add(e.name);
  };
  forEachProgramExpr(p.body, visit);
  for (const a of p.arrays) a.shape?.forEach((e) => visitExpr(e, visit));
  for (const l of launches(p.body)) forEachHLoop(l, (h) => checkTargets(h.body, arrays));
  forEachPStmt(p.body, (s) => {
    if (s.kind === 'call') for (const a of Object.values(s.fields)) arrays.add(a);
    if (s.kind === 'for') scalars.add(s.var);
  });
  return { scalars, arrays };
}
