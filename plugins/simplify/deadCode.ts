import type { PStmt, Program, Stmt } from '../../core/ir/types.js';
import { namesRead } from '../../core/ir/uses.js';
import { flatMapStmts, launches, mapStmtLists, somePStmt } from '../../core/ir/visit.js';
import { reachableRegions } from '../../core/ir/regionReach.js';

/**
 * Dead code and dead dataflow elimination, to a fixpoint: sets of locals nobody reads,
 * writes to transients and point locals nobody reads, horizontal regions that hold nowhere
 * their nest runs (core/ir/regionReach.ts), then the arrays, locals, loop nests and launches
 * left empty. Field arguments are always kept: writing them is the result.
 */
export function deadCode(p: Program): Program {
  let cur = p;
  for (let round = 0; round < 10; round++) {
    const next = sweep(cur);
    if (JSON.stringify(next) === JSON.stringify(cur)) return next;
    cur = next;
  }
  return cur;
}

function sweep(p: Program): Program {
  const read = namesRead(p);
  const roles = new Map(p.arrays.map((a) => [a.name, a.role]));
  const deadArray = (name: string) => roles.get(name) !== 'arg' && !read.arrays.has(name);
  const point = (stmts: Stmt[]): Stmt[] =>
    flatMapStmts(stmts, (s): Stmt[] => {
      switch (s.kind) {
        case 'assign':
          return deadArray(s.target) ? [] : [s];
        case 'let':
          return read.scalars.has(s.name) ? [s] : [];
        case 'if':
          return s.then.length || s.else.length ? [s] : [];
        case 'region':
          return s.body.length ? [s] : [];
        case 'while':
        case 'check':
          return [s];
      }
    });
  const body = mapStmtLists(p.body, (list) =>
    list.flatMap((s): PStmt[] => {
      if (s.kind === 'set' && !read.scalars.has(s.name)) return [];
      if (s.kind === 'if' && !s.then.length && !s.else.length) return [];
      if (s.kind === 'launch') {
        const loops = s.loops
          .map((v) => ({ ...v, body: v.body.map((h) => ({ ...h, body: point(reachableRegions(h, s.domain)), locals: h.locals?.filter((l) => read.scalars.has(l.name)) })).filter((h) => h.body.length) }))
          .filter((v) => v.body.length);
        if (!loops.length) return [];
        const transients = s.transients.filter((t) => !deadArray(t));
        const origins = Object.fromEntries(Object.entries(s.origins).filter(([a]) => !deadArray(a) || roles.get(a) === 'arg'));
        return [{ ...s, loops, transients, origins }];
      }
      return [s];
    }),
  );
  const live = { ...p, body };
  const stillRead = namesRead(live);
  const inLaunch = new Set<string>();
  for (const l of launches(body)) for (const t of l.transients) inLaunch.add(t);
  return {
    ...live,
    arrays: p.arrays.filter((a) => a.role === 'arg' || (a.role === 'transient' ? inLaunch.has(a.name) && stillRead.arrays.has(a.name) : stillRead.arrays.has(a.name))),
    scalars: p.scalars.filter((s) => s.role === 'arg' || stillRead.scalars.has(s.name) || assigned(body, s.name)),
  };
}

function assigned(stmts: PStmt[], name: string): boolean {
  return somePStmt(stmts, (s) => (s.kind === 'set' ? s.name === name : s.kind === 'callback' ? s.result === name : s.kind === 'for' && s.var === name));
}
