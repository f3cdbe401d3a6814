import type { Expr, HLoop, Program, Stmt, Launch } from '../../core/ir/types.js';
import { flatMapStmts, mapStmtLists, mapStmts, someStmt } from '../../core/ir/visit.js';
import { checkTargets, reads, touches, writes } from '../../core/ir/uses.js';

/**
 * Temporaries shrunk to scalars (simplify, second run): a transient that one loop nest
 * alone touches, and only at offset zero, becomes a point-local scalar of that nest. It
 * starts at zero at every point, as the zero-filled array did, so results are identical
 * and its memory traffic disappears. A transient several nests touch becomes a scalar of
 * each when every one of them writes it before reading it, at offset zero only: each nest
 * then reads only what it wrote at the same point (a Thomas solver's coefficients, one
 * nest per K interval after sweep fusion).
 */

/** Whether `stmts` assign `name` at top level, unconditionally, before anything reads it. */
function writtenFirst(stmts: Stmt[], name: string): boolean {
  for (const s of stmts) {
    const read = reads([s]).some((r) => r.name === name);
    if (s.kind === 'assign' && s.target === name) return !read && !s.kOffset && !s.kVar;
    if (read || writes([s]).has(name)) return false;
  }
  return false;
}

function toLocal(stmts: Stmt[], name: string): Stmt[] {
  const asScalar = (e: Expr): Expr => (e.kind === 'field' && e.name === name ? { kind: 'scalar', name, dtype: e.dtype } : e);
  return flatMapStmts(mapStmts(stmts, asScalar), (s): Stmt[] => (s.kind === 'assign' && s.target === name ? [{ kind: 'let', name, value: s.value, loc: s.loc }] : [s]));
}

function scalarizeLaunch(l: Launch, program: Program, removed: Set<string>): Launch {
  const decl = new Map(program.arrays.map((a) => [a.name, a]));
  let loops = l.loops;
  const keep: string[] = [];
  for (const t of l.transients) {
    const users: HLoop[] = [];
    for (const v of loops) for (const h of v.body) if (touches(h.body, t)) users.push(h);
    const allReads = users.flatMap((h) => reads(h.body).filter((r) => r.name === t));
    const checked = users.some((h) => checkTargets(h.body).has(t));
    // a 2-D transient carries its value from one level to the next: it is no point-local scalar
    // a write at a K offset (constant or computed) sets another level than the point's
    const shifted = users.some((h) => someStmt(h.body, (s) => s.kind === 'assign' && s.target === t && (!!s.kOffset || !!s.kVar)));
    const alone = !shifted && (users.length === 1 || users.every((h) => writtenFirst(h.body, t)));
    if (decl.get(t)!.axes !== 'IJK' || !alone || checked || allReads.some((r) => r.variableK || r.offset.some((o) => o !== 0))) {
      keep.push(t);
      continue;
    }
    const dtype = decl.get(t)!.dtype;
    loops = loops.map((v) => ({
      ...v,
      body: v.body.map((h) => (users.includes(h) ? { ...h, body: toLocal(h.body, t), locals: [...(h.locals ?? []), { name: t, dtype }] } : h)),
    }));
    removed.add(t);
  }
  const origins = Object.fromEntries(Object.entries(l.origins).filter(([a]) => !removed.has(a)));
  return { ...l, loops, transients: keep, origins };
}

export function scalarization(p: Program): Program {
  const removed = new Set<string>();
  const body = mapStmtLists(p.body, (list) => list.map((s) => (s.kind === 'launch' ? scalarizeLaunch(s, p, removed) : s)));
  return { ...p, body, arrays: p.arrays.filter((a) => !removed.has(a.name)) };
}
