import type { AxisBound, Expr, FieldDecl, IterationOrder, SourceLoc, Stmt } from '../../core/ir/types.js';
import { writes } from '../../core/ir/uses.js';
import { forEachExpr, forEachStmt, visitExpr } from '../../core/ir/visit.js';
import { offsetReadInWhileLoop, offsetReadOfWrittenField, parallelKOffsetRead, selfAssignmentAtOffset } from '../../core/diagnostics/stencilErrors.js';

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
          throw selfAssignmentAtOffset(f.name, offsetText(f), at(f, s));
        }
      });
    }
    if (s.kind === 'while') {
      // GT4Py checks the loop's body, not its condition
      const loopWrites = writes(s.body);
      forEachExpr(s.body, (x) => {
        if (x.kind === 'field' && horizontal(x) && loopWrites.has(x.name)) {
          throw offsetReadInWhileLoop(x.name, offsetText(x), at(x, s));
        }
      });
    }
  });

  const written = writes([...iv.body]);
  forEachExpr(iv.body, (x) => {
    if (x.kind !== 'field' || !horizontal(x) || !written.has(x.name) || iv.declaredHere.has(x.name)) return;
    const temp = fields.get(x.name)?.role === 'temp';
    throw offsetReadOfWrittenField(x.name, offsetText(x), temp, locOf(x) ?? x.loc ?? iv.body[0].loc, x.name.length);
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
    throw parallelKOffsetRead(what, x.name, offsetText(x), locOf(x) ?? x.loc ?? iv.body[0].loc, x.name.length);
  });
}

/** GT4Py's `_size_one`: both bounds from the same end, one level apart. */
function oneLevel(start: AxisBound, end: AxisBound): boolean {
  return start.level === end.level && Math.abs(end.offset - start.offset) === 1;
}
