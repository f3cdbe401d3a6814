import type { Expr, PStmt, Program } from '../../core/ir/types.js';
import { mapProgramExprs } from '../../core/ir/rewrite.js';
import { mapExpr, visitExpr } from '../../core/ir/walk.js';

/**
 * Propagates locals assigned exactly once, at the top level of the program, from values
 * that cannot change (arguments, shapes, literals, other such locals): `nx = q.shape[0]`
 * and the domains library expansion binds become the expressions themselves, so launches
 * over the same domain compare equal and can fuse. Runtime scalars stay variables: an
 * argument is substituted by name, never by a value.
 */
export function copyPropagation(p: Program): Program {
  const setCount = new Map<string, number>();
  const count = (stmts: PStmt[], nested: boolean) => {
    for (const s of stmts) {
      if (s.kind === 'set') setCount.set(s.name, (setCount.get(s.name) ?? 0) + (nested ? 2 : 1));
      else if (s.kind === 'callback' && s.result !== null) setCount.set(s.result, 2);
      else if (s.kind === 'for') {
        setCount.set(s.var, 2);
        count(s.body, true);
      } else if (s.kind === 'while') count(s.body, true);
      else if (s.kind === 'if') {
        count(s.then, true);
        count(s.else, true);
      }
    }
  };
  count(p.body, false);
  const args = new Set(p.scalars.filter((s) => s.role === 'arg').map((s) => s.name));
  const known = new Map<string, Expr>();
  const stable = (e: Expr): boolean => {
    let ok = true;
    visitExpr(e, (x) => {
      if (x.kind === 'field') ok = false;
      if (x.kind === 'scalar' && !args.has(x.name) && !known.has(x.name)) ok = false;
    });
    return ok;
  };
  const subst = (e: Expr): Expr => mapExpr(e, (x) => (x.kind === 'scalar' && known.has(x.name) ? known.get(x.name)! : x));
  const dtypes = new Map(p.scalars.map((s) => [s.name, s.dtype]));
  const body: PStmt[] = [];
  for (const s of p.body) {
    const [rewritten] = mapProgramExprs([s], subst);
    if (rewritten.kind === 'set' && setCount.get(rewritten.name) === 1 && stable(rewritten.value) && dtypes.get(rewritten.name) === rewritten.value.dtype) {
      known.set(rewritten.name, rewritten.value);
    }
    body.push(rewritten);
  }
  // array shapes are evaluated where the array is allocated, after the sets they read
  const arrays = p.arrays.map((a) => (a.shape ? { ...a, shape: a.shape.map(subst) } : a));
  return { ...p, body, arrays };
}
