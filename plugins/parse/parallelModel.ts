import { fail } from '../../core/diagnostics.js';
import type { Expr, FieldDecl, IterationOrder, SourceLoc, Stmt } from '../../core/ir/types.js';
import { writes } from '../../core/ir/uses.js';
import { forEachStmt, visitExpr } from '../../core/ir/visit.js';

/**
 * The restrictions GT4Py's parallel model puts on one computation interval (one GT4Py
 * "vertical loop"), checked on the lowered body so helpers and regions count too. Each
 * pattern would make the result depend on the order in which points are computed, so
 * GT4Py rejects it and so does orch, with the same rule:
 *
 *  - a field argument written in the interval and read in it at a horizontal offset;
 *  - an assignment that reads its own target at a horizontal offset;
 *  - in a `while` body, any field or temporary written and read at a horizontal offset;
 *  - in a PARALLEL interval, an assignment that reads its own target at another level (a
 *    K offset, constant or variable). Other statements reading a written field at a K
 *    offset are well defined: each PARALLEL statement sweeps the interval before the next
 *    (PyFV3 relies on it, e.g. nh_p_grad writes pk3 at the top level and reads pk3[0, 0, 1]).
 *
 * `locOf` gives the source location of a field read (the frontend records them).
 */
export function checkParallelModel(
  body: readonly Stmt[],
  order: IterationOrder,
  fields: ReadonlyMap<string, FieldDecl>,
  locOf: (e: Expr) => SourceLoc | undefined,
): void {
  const written = writes([...body]);
  // a read of levels a FORWARD/BACKWARD sweep has finished sees complete values whatever
  // the point order, so only reads at the current (or a not yet computed) level count
  const finished = (e: Extract<Expr, { kind: 'field' }>) => e.kOffset === undefined && ((order === 'FORWARD' && e.offset[2] < 0) || (order === 'BACKWARD' && e.offset[2] > 0));
  const horizontal = (e: Extract<Expr, { kind: 'field' }>) => (e.offset[0] !== 0 || e.offset[1] !== 0) && !finished(e);
  const vertical = (e: Extract<Expr, { kind: 'field' }>) => e.offset[2] !== 0 || e.kOffset !== undefined;
  const offsetText = (e: Extract<Expr, { kind: 'field' }>) => `[${e.offset[0]}, ${e.offset[1]}, ${e.kOffset ? 'variable' : e.offset[2]}]`;

  const visit = (stmts: readonly Stmt[], inWhile: ReadonlySet<string> | null): void =>
    forEachStmt(stmts, (s) => {
      const reads = (e: Expr, check: (f: Extract<Expr, { kind: 'field' }>) => void) =>
        visitExpr(e, (x) => {
          if (x.kind === 'field') check(x);
        });
      const at = (f: Expr): { loc: SourceLoc; length: number } => ({ loc: locOf(f) ?? s.loc, length: (f as { name: string }).name.length });
      const checkRead = (f: Extract<Expr, { kind: 'field' }>, target: string | null, loop = inWhile) => {
        const decl = fields.get(f.name);
        if (horizontal(f) && target === f.name) {
          fail('E_SELF_ASSIGN_OFFSET', `'${f.name}' is assigned from its own value at horizontal offset ${offsetText(f)}`, {
            ...at(f),
            hint: `GT4Py rejects this: points would read neighbours that are already updated. Assign to a new temporary (${f.name}_new = ...) and use that`,
          });
        }
        if (horizontal(f) && decl?.role === 'api' && written.has(f.name)) {
          fail('E_WRITE_READ_OFFSET', `field '${f.name}' is read at horizontal offset ${offsetText(f)} in a computation interval that also writes it`, {
            ...at(f),
            hint: `GT4Py rejects this for field arguments (the result would depend on the order points are computed): write the new values to another field or a temporary, or read '${f.name}' in a separate \`with computation(...)\` block`,
          });
        }
        if (horizontal(f) && loop?.has(f.name)) {
          fail('E_WRITE_READ_OFFSET', `'${f.name}' is written in this while loop and read in it at horizontal offset ${offsetText(f)}`, {
            ...at(f),
            hint: 'GT4Py rejects this: a while loop runs point by point, so neighbours would be at different iterations. Move the offset read out of the loop',
          });
        }
        if (order === 'PARALLEL' && vertical(f) && target === f.name) {
          fail('E_PARALLEL_K_OFFSET', `'${f.name}' is assigned from its own value at K offset ${offsetText(f)} in a PARALLEL computation`, {
            ...at(f),
            hint: `the levels of a PARALLEL computation have no order, so the result would depend on it (GT4Py rejects it too): use computation(FORWARD) or computation(BACKWARD) for a recurrence, or assign to a new temporary (${f.name}_new = ...)`,
          });
        }
      };
      switch (s.kind) {
        case 'assign':
          if (s.kVar) reads(s.kVar, (f) => checkRead(f, null));
          reads(s.value, (f) => checkRead(f, s.target));
          break;
        case 'if':
          reads(s.cond, (f) => checkRead(f, null));
          break;
        case 'while': {
          // the loop's body is checked against what the loop writes
          const loopWrites = writes(s.body, new Set(inWhile ?? []));
          reads(s.cond, (f) => checkRead(f, null, loopWrites));
          visit(s.body, loopWrites);
          return false;
        }
      }
    });
  visit(body, null);
}
