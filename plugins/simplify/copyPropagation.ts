import type { Expr, PStmt, Program } from '../../core/ir/types.js';
import { forEachPStmt, mapExpr, mapProgramExprs, visitExpr } from '../../core/ir/visit.js';

/**
 * Propagates locals assigned exactly once from values that cannot change (arguments the
 * program never reassigns, shapes, literals, other such locals): `nx = q.shape[0]` and the
 * domains library expansion binds before each launch, also inside loops, become the
 * expressions themselves, so launches over the same domain compare equal and can fuse.
 * A local is only replaced after its assignment in the same statement list (or inside
 * later statements of it), where the assignment has certainly run. Runtime scalars stay
 * variables: an argument is substituted by name, never by a value.
 */
/** Replaces the scalars `known` binds by their values. */
function substituting(known: Map<string, Expr>): (e: Expr) => Expr {
  return (e) => mapExpr(e, (x) => (x.kind === 'scalar' && known.has(x.name) ? known.get(x.name)! : x));
}

export function copyPropagation(p: Program): Program {
  const setCount = new Map<string, number>();
  const bump = (name: string, by: number) => setCount.set(name, (setCount.get(name) ?? 0) + by);
  forEachPStmt(p.body, (s) => {
    if (s.kind === 'set') bump(s.name, 1);
    else if (s.kind === 'callback' && s.result !== null) bump(s.result, 2);
    else if (s.kind === 'for') bump(s.var, 2);
  });
  // an argument the program reassigns is a variable like any other
  const args = new Set(p.scalars.filter((s) => s.role === 'arg' && !setCount.has(s.name)).map((s) => s.name));
  const dtypes = new Map(p.scalars.map((s) => [s.name, s.dtype]));

  const propagate = (list: PStmt[], known: Map<string, Expr>): PStmt[] => {
    const stable = (e: Expr): boolean => {
      let ok = true;
      visitExpr(e, (x) => {
        if (x.kind === 'field') ok = false;
        if (x.kind === 'scalar' && !args.has(x.name) && !known.has(x.name)) ok = false;
      });
      return ok;
    };
    const subst = substituting(known);
    return list.map((s): PStmt => {
      switch (s.kind) {
        case 'set': {
          const value = subst(s.value);
          if (setCount.get(s.name) === 1 && stable(value) && dtypes.get(s.name) === value.dtype) known.set(s.name, value);
          return { ...s, value };
        }
        case 'for':
          return { ...s, start: subst(s.start), stop: subst(s.stop), step: subst(s.step), body: propagate(s.body, new Map(known)) };
        case 'while':
          return { ...s, cond: subst(s.cond), body: propagate(s.body, new Map(known)) };
        case 'if':
          return { ...s, cond: subst(s.cond), then: propagate(s.then, new Map(known)), else: propagate(s.else, new Map(known)) };
        default:
          return mapProgramExprs([s], subst)[0];
      }
    });
  };
  const top = new Map<string, Expr>();
  const body = propagate(p.body, top);
  // array shapes are evaluated where the array is allocated, after the top-level sets they read
  const arrays = p.arrays.map((a) => (a.shape ? { ...a, shape: a.shape.map(substituting(top)) } : a));
  return { ...p, body, arrays };
}
