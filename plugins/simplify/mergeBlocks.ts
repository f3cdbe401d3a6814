import type { Expr, PStmt, Program, Stmt } from '../../core/ir/types.js';
import { mapStmtLists, sameExpr } from '../../core/ir/rewrite.js';
import { visitExpr, writes } from '../../core/ir/walk.js';

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

function pointLets(stmts: Stmt[], out = new Set<string>()): Set<string> {
  for (const s of stmts) {
    if (s.kind === 'let') out.add(s.name);
    else if (s.kind === 'if') {
      pointLets(s.then, out);
      pointLets(s.else, out);
    } else if (s.kind === 'while' || s.kind === 'region') pointLets(s.body, out);
  }
  return out;
}

function mergePoint(stmts: Stmt[]): Stmt[] {
  const out: Stmt[] = [];
  for (const raw of stmts) {
    const s: Stmt =
      raw.kind === 'if' ? { ...raw, then: mergePoint(raw.then), else: mergePoint(raw.else) } : raw.kind === 'while' || raw.kind === 'region' ? { ...raw, body: mergePoint(raw.body) } : raw;
    const last = out[out.length - 1];
    if (last?.kind === 'if' && s.kind === 'if' && sameExpr(last.cond, s.cond)) {
      const reads = condNames(s.cond);
      const changed = new Set([...writes([last]), ...pointLets([last])]);
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

function sets(stmts: PStmt[], out = new Set<string>()): Set<string> {
  for (const s of stmts) {
    if (s.kind === 'set') out.add(s.name);
    else if (s.kind === 'callback' && s.result !== null) out.add(s.result);
    else if (s.kind === 'for') {
      out.add(s.var);
      sets(s.body, out);
    } else if (s.kind === 'while') sets(s.body, out);
    else if (s.kind === 'if') {
      sets(s.then, out);
      sets(s.else, out);
    }
  }
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
      out.push(s.kind === 'launch' ? { ...s, loops: s.loops.map((v) => ({ ...v, body: v.body.map((h) => ({ ...h, body: mergePoint(h.body) })) })) } : s);
    }
    return out;
  });
  return { ...p, body };
}
