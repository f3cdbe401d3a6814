import type { Expr, FieldDecl, SourceLoc, Stmt } from '../../core/ir/types.js';
import { writes } from '../../core/ir/uses.js';
import { visitExpr } from '../../core/ir/visit.js';
import { cast } from './typeRules.js';
import { intervalBoundAtOffset, intervalBoundBool, intervalBoundDependsOnK, intervalBoundHasK, intervalBoundWritten } from '../../core/diagnostics/stencilErrors.js';

/**
 * Interval bounds known only at run time (`interval(0, n)` with a scalar `n`, or with an IJ
 * field: GT4Py's experimental runtime interval bounds). The interval runs over every level
 * of its static part, and each of its statements only where the point's K index lies in
 * [start, end): GT4Py's debug backend runs `for k in range(start, end)` per column, which
 * visits the same levels of the domain in the same order, for each order. Where it would
 * also run levels beyond the domain, bounds from scalars fail the call before it runs
 * (library expansion's E_INTERVAL_BOUNDS requirement); bounds from fields differ per column
 * and are only masked.
 */

/** Levels below `lo` or from `hi` up are masked; absent bounds are static. */
export interface RuntimeBounds {
  lo?: Expr;
  hi?: Expr;
}

/**
 * A runtime bound as GT4Py takes it: a scalar, or a field without a K axis read at the
 * column itself (a data index allowed), truncated to an integer as GT4Py's `int(...)` does.
 */
export function runtimeBound(e: Expr, fields: ReadonlyMap<string, FieldDecl>, loc: SourceLoc): Expr {
  visitExpr(e, (x) => {
    if (x.kind === 'kindex') throw intervalBoundDependsOnK(loc);
    if (x.kind !== 'field') return;
    const f = fields.get(x.name)!;
    if (f.axes.includes('K')) {
      throw intervalBoundHasK(x.name, loc);
    }
    if (x.offset[0] !== 0 || x.offset[1] !== 0) {
      throw intervalBoundAtOffset(x.name, loc);
    }
  });
  if (e.dtype === 'bool') throw intervalBoundBool(loc);
  return cast(e, 'int64');
}

/** Whether the bounds read scalars only (no field): the same for every column of a call. */
export function scalarBounds(bounds: RuntimeBounds): boolean {
  let fields = false;
  for (const b of [bounds.lo, bounds.hi]) if (b) visitExpr(b, (x) => (fields ||= x.kind === 'field'));
  return !fields;
}

/**
 * The interval's statements, each run only at the levels the runtime bounds let through.
 * Each top-level statement keeps its own mask, so a PARALLEL statement still sweeps all of
 * its levels before the next one starts.
 */
export function maskStatements(stmts: Stmt[], bounds: RuntimeBounds, loc: SourceLoc): Stmt[] {
  const boundFields = new Set<string>();
  for (const b of [bounds.lo, bounds.hi]) if (b) visitExpr(b, (x) => x.kind === 'field' && boundFields.add(x.name));
  const written = [...writes(stmts)].find((n) => boundFields.has(n));
  if (written) {
    throw intervalBoundWritten(written, loc);
  }
  const k: Expr = { kind: 'kindex', dtype: 'int64' };
  const parts: Expr[] = [];
  if (bounds.lo) parts.push({ kind: 'binary', op: '>=', left: k, right: bounds.lo, dtype: 'bool' });
  if (bounds.hi) parts.push({ kind: 'binary', op: '<', left: k, right: bounds.hi, dtype: 'bool' });
  const cond = parts.reduce((a, b) => ({ kind: 'binary', op: 'and', left: a, right: b, dtype: 'bool' }));
  return stmts.map((s) => ({ kind: 'if', cond: structuredClone(cond), then: [s], else: [], loc: s.loc }));
}
