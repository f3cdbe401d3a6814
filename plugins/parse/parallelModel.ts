import { fail } from '../../core/diagnostics.js';
import type { AxisBound, Expr, FieldDecl, IterationOrder, SourceLoc, Stmt } from '../../core/ir/types.js';
import { writes } from '../../core/ir/uses.js';
import { forEachExpr, forEachStmt, visitExpr } from '../../core/ir/visit.js';

type FieldRead = Extract<Expr, { kind: 'field' }>;

/** One computation interval (one GT4Py "vertical loop"), lowered. */
export interface IntervalBody {
  body: readonly Stmt[];
  order: IterationOrder;
  start: AxisBound;
  end: AxisBound;
  /** Temporaries first assigned in this interval (GT4Py declares them in it). */
  declaredHere: ReadonlySet<string>;
}

/**
 * The restrictions GT4Py's parallel model puts on one computation interval, checked on the
 * lowered body so helpers and regions count too. They are the validators of GT4Py's GTIR at
 * the pin (gtc/gtir.py, 99b79b58), with their messages, so orch refuses exactly what GT4Py
 * refuses when `@gtscript.stencil` runs:
 *
 *  - ParAssignStmt: an assignment whose right side reads its own target at an I or J offset
 *    (any iteration order, temporaries too);
 *  - While: in a loop body, a field or temporary written and read at an I or J offset;
 *  - VerticalLoop: a field written in the interval and read in it at an I or J offset,
 *    unless it is a temporary first assigned in this interval (GT4Py gives those
 *    block-private halos; a temporary from an earlier block has none);
 *  - VerticalLoop, PARALLEL and more than one level: a field written in the interval and
 *    read in it at another K offset, or at a variable one. A one-level interval
 *    (`interval(0, 1)`, `interval(-1, None)`) is exempt: PyFV3's nh_p_grad writes pk3 there
 *    and reads pk3[0, 0, 1].
 *
 * `locOf` gives the source location of a field read (the frontend records them).
 */
export function checkParallelModel(iv: IntervalBody, fields: ReadonlyMap<string, FieldDecl>, locOf: (e: Expr) => SourceLoc | undefined): void {
  const horizontal = (e: FieldRead) => e.offset[0] !== 0 || e.offset[1] !== 0;
  const offsetText = (e: FieldRead) => `[${e.offset[0]}, ${e.offset[1]}, ${e.kOffset ? 'variable' : e.offset[2]}]`;
  const at = (f: FieldRead, s: { loc: SourceLoc }) => ({ loc: locOf(f) ?? f.loc ?? s.loc, length: f.name.length });
  const fieldReads = (e: Expr, fn: (f: FieldRead) => void) =>
    visitExpr(e, (x) => {
      if (x.kind === 'field') fn(x);
    });

  forEachStmt(iv.body, (s) => {
    if (s.kind === 'assign') {
      fieldReads(s.value, (f) => {
        if (f.name === s.target && horizontal(f)) {
          fail('E_SELF_ASSIGN_OFFSET', `Self-assignment with offset in I or J is illegal: '${f.name}' is assigned from its own value at horizontal offset ${offsetText(f)}`, {
            ...at(f, s),
            hint: `GT4Py rejects this: points would read neighbours that are already updated. Assign to a new temporary (${f.name}_new = ...) and use that`,
          });
        }
      });
    }
    if (s.kind === 'while') {
      // GT4Py checks the loop's body, not its condition
      const loopWrites = writes(s.body);
      forEachExpr(s.body, (x) => {
        if (x.kind === 'field' && horizontal(x) && loopWrites.has(x.name)) {
          fail('E_WRITE_READ_OFFSET', `Illegal write and read with horizontal offset detected for '${x.name}': it is written in this while loop and read in it at horizontal offset ${offsetText(x)}`, {
            ...at(x, s),
            hint: 'GT4Py rejects this: a while loop runs point by point, so neighbours would be at different iterations. Move the offset read out of the loop',
          });
        }
      });
    }
  });

  const written = writes([...iv.body]);
  forEachExpr(iv.body, (x) => {
    if (x.kind !== 'field' || !horizontal(x) || !written.has(x.name) || iv.declaredHere.has(x.name)) return;
    const temp = fields.get(x.name)?.role === 'temp';
    fail('E_WRITE_READ_OFFSET', `Illegal write and read with horizontal offset detected for '${x.name}': it is read at horizontal offset ${offsetText(x)} in a computation interval that also writes it`, {
      loc: locOf(x) ?? x.loc ?? iv.body[0].loc,
      length: x.name.length,
      hint: temp
        ? `GT4Py rejects this for a temporary assigned in an earlier \`with computation(...)\` block (only temporaries first assigned in this block may be): assign the new values to a new temporary, or read '${x.name}' in a separate block`
        : `GT4Py rejects this for field arguments (the result would depend on the order points are computed): write the new values to another field or a temporary, or read '${x.name}' in a separate \`with computation(...)\` block`,
    });
  });

  if (iv.order !== 'PARALLEL' || oneLevel(iv.start, iv.end)) return;
  const writeK = new Map<string, number>();
  forEachStmt(iv.body, (s) => {
    if (s.kind === 'assign' && !writeK.has(s.target)) writeK.set(s.target, s.kOffset ?? 0);
  });
  forEachExpr(iv.body, (x) => {
    if (x.kind !== 'field' || !writeK.has(x.name)) return;
    const variable = x.kOffset !== undefined;
    if (!variable && x.offset[2] === writeK.get(x.name)) return;
    const what = variable ? 'Not allowed to write and read with `VariableKOffset` and/or `AbsoluteKIndex` in PARALLEL loops' : 'Not allowed to write and read with k-offsets in PARALLEL loops';
    fail('E_PARALLEL_K_OFFSET', `${what}: '${x.name}' is written in this computation interval and read in it at K offset ${offsetText(x)}`, {
      loc: locOf(x) ?? x.loc ?? iv.body[0].loc,
      length: x.name.length,
      hint: `the levels of a PARALLEL computation have no order, so the result would depend on it (GT4Py rejects it too): use computation(FORWARD) or computation(BACKWARD) for a recurrence, or write the new values to another field or a new temporary`,
    });
  });
}

/** GT4Py's `_size_one`: both bounds from the same end, one level apart. */
function oneLevel(start: AxisBound, end: AxisBound): boolean {
  return start.level === end.level && Math.abs(end.offset - start.offset) === 1;
}
