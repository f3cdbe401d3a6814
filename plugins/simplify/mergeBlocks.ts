import type { Expr, PStmt, Program, Stmt } from '../../core/ir/types.js';
import { sameExpr } from '../../core/ir/build.js';
import { forEachPStmt, mapStmtBlocks, mapStmtLists, visitExpr } from '../../core/ir/visit.js';
import { letNames, writes } from '../../core/ir/uses.js';

/**
 * Merging of adjacent control-flow blocks: two `if`s on the same condition, when the first
 * cannot change what the condition reads, become one; adjacent regions over the same
 * bounds become one. Fewer branches per point, fewer scalar tests in programs.
 */

function condNames(e: Expr): Set<string> {
  const out = new Set<string>();
  visitExpr(e, (x) => {
    if (x.kind === 'field' || x.kind === 'scalar' || x.kind === 'shape') out.add(x.name);
  });
  return out;
}

/** Merges adjacent blocks of one statement list (nested lists are merged first). */
function mergeAdjacent(stmts: Stmt[]): Stmt[] {
  const out: Stmt[] = [];
  for (const s of stmts) {
    const last = out[out.length - 1];
    if (last?.kind === 'if' && s.kind === 'if' && sameExpr(last.cond, s.cond)) {
      const reads = condNames(s.cond);
      const changed = new Set([...writes([last]), ...letNames([last])]);
      if (![...reads].some((n) => changed.has(n))) {
        out[out.length - 1] = { ...last, then: [...last.then, ...s.then], else: [...last.else, ...s.else] };
        continue;
      }
    }
    if (last?.kind === 'region' && s.kind === 'region' && !last.split && !s.split && JSON.stringify(last.regions) === JSON.stringify(s.regions)) {
      out[out.length - 1] = { ...last, body: [...last.body, ...s.body] };
      continue;
    }
    out.push(s);
  }
  return out;
}

/** Program scalars a statement list assigns (sets, callback results, loop variables). */
function sets(stmts: PStmt[]): Set<string> {
  const out = new Set<string>();
  forEachPStmt(stmts, (s) => {
    if (s.kind === 'set') out.add(s.name);
    else if (s.kind === 'callback' && s.result !== null) out.add(s.result);
    else if (s.kind === 'for') out.add(s.var);
  });
  return out;
}

export function mergeBlocks(p: Program): Program {
  const body = mapStmtLists(p.body, (list) => {
    const out: PStmt[] = [];
    for (const s of list) {
      const last = out[out.length - 1];
      if (last?.kind === 'if' && s.kind === 'if' && sameExpr(last.cond, s.cond)) {
        const changed = sets([last]);
        // launches write arrays only; the condition of a program-level if reads scalars and shapes
        if (![...condNames(s.cond)].some((n) => changed.has(n))) {
          out[out.length - 1] = { ...last, then: [...last.then, ...s.then], else: [...last.else, ...s.else] };
          continue;
        }
      }
      out.push(s.kind === 'launch' ? { ...s, loops: s.loops.map((v) => ({ ...v, body: v.body.map((h) => ({ ...h, body: mapStmtBlocks(h.body, mergeAdjacent) })) })) } : s);
    }
    return out;
  });
  return { ...p, body };
}
