import type { AxisBound, Expr, HLoop, HorizontalRegion, RegionAxis, Stmt } from './types.js';
import { flatMapStmts } from './visit.js';

/**
 * Whether a horizontal region of a statement in nest `h` can hold at any point the nest runs,
 * for every size of the launch's `domain`. A region's bounds count from the domain's start (0)
 * or end (its size); the nest's range is a literal below (the extent it computes before the
 * domain) and the domain's size plus a literal above, as library expansion writes it. A region
 * ending at or before the range's start, or starting at or after its end, holds nowhere: its
 * statements never run (GT4Py's UnreachableStmtPruning drops them too). del-n damping's corner
 * copies, called on the compute domain, write the halo corners only where the statement's extent
 * reaches them: it does not, so they are dead. A bound of another shape (a run-time expression,
 * a folded one) is taken to reach everything.
 */
export function regionReachable(r: HorizontalRegion, h: HLoop, domain: readonly Expr[]): boolean {
  return axisReachable(r.i, h.i.lo, h.i.hi, domain[0]) && axisReachable(r.j, h.j.lo, h.j.hi, domain[1]);
}

/** The nest's statements without the regions that hold nowhere it runs (regionReachable); a region statement left with none is dropped. */
export function reachableRegions(h: HLoop, domain: readonly Expr[]): Stmt[] {
  return flatMapStmts(h.body, (s) => {
    if (s.kind !== 'region') return [s];
    const regions = s.regions.filter((r) => regionReachable(r, h, domain));
    if (regions.length === s.regions.length) return [s];
    return regions.length ? [{ ...s, regions }] : [];
  });
}

function axisReachable(axis: RegionAxis, lo: Expr, hi: Expr, size: Expr): boolean {
  const from = asBound(lo, size);
  const to = asBound(hi, size);
  // [start, end) misses [from, to) if it ends by `from` or starts at `to` or later
  if (axis.end && from && axis.end.level === from.level && axis.end.offset <= from.offset) return false;
  if (axis.start && to && axis.start.level === to.level && axis.start.offset >= to.offset) return false;
  return true;
}

/** A nest bound as an offset from the domain's start (a literal) or end (`size`, `size + n`, `size - n`). */
function asBound(e: Expr, size: Expr): AxisBound | undefined {
  if (e.kind === 'lit' && typeof e.value === 'number') return { level: 'start', offset: e.value };
  if (same(e, size)) return { level: 'end', offset: 0 };
  if (e.kind === 'binary' && (e.op === '+' || e.op === '-') && same(e.left, size) && e.right.kind === 'lit' && typeof e.right.value === 'number') {
    return { level: 'end', offset: e.op === '+' ? e.right.value : -e.right.value };
  }
  return undefined;
}

function same(a: Expr, b: Expr): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
