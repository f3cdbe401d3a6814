import { type ArrayDecl, type Expr, type HorizontalRegion, type Launch, type Offset, type Range, type RegionAxis, type Stmt, axisIndices } from './types.js';
import { add, and, int, lt, max, min } from './build.js';
import { forEachStmt, stmtExprs, visitExpr } from './visit.js';
import { reads, variableKNames, writes } from './uses.js';

/**
 * Which indices a launch touches, as IR expressions, so every backend checks array bounds
 * the same way before running a launch (the C++ backend emits them as `if`s, the
 * interpreter evaluates them with its own `Expr` evaluator).
 *
 * For every HLoop (and every horizontal region inside it) and every array accessed there,
 * the accesses are summarized per array axis as the inclusive index range
 *
 *     lo = origin[pos] + range.lo     + min offset
 *     hi = origin[pos] + range.hi - 1 + max offset
 *
 * where `range` is the loop range of that axis (K from the VLoop, I/J from the HLoop,
 * narrowed by enclosing `region` statements) and the offsets are those of every read
 * (`field` exprs) and write (`assign` targets, offset 0) of the array in that scope.
 * A bound only applies when `nonEmpty` holds: an empty loop touches nothing.
 *
 * Reads and writes at a variable K offset (`kOffset` of a read, `kVar` of a write) count along I
 * and J only; their K index is only known as they happen, so backends check each one then
 * (`variableKArrays` lists them).
 *
 * Branches (`if`, `while`) are not followed: both branches count, like GT4Py's extents.
 * Regions narrow a range to the hull of (loop range ∩ region) over the region's boxes;
 * the hull always lies inside the loop range, so it is never looser than ignoring regions.
 */
export interface AccessBound {
  array: string;
  /** Position of the axis within the array's `axes` (the index into its shape). */
  axis: number;
  /** The axis letter, for messages. */
  axisName: 'I' | 'J' | 'K';
  /** Smallest index touched (int64). */
  lo: Expr;
  /** Largest index touched, inclusive (int64). */
  hi: Expr;
  /** Whether the loop (and region) is non-empty, i.e. whether the bound applies (bool). */
  nonEmpty: Expr;
}

const AXIS_NAMES = ['I', 'J', 'K'] as const;

/** The ranges of one loop scope (an HLoop, or a region inside it), indexed I, J, K. */
type Scope = [Range, Range, Range];

interface OffsetHull {
  min: Offset;
  max: Offset;
}

export function launchAccessBounds(launch: Launch, arrays: readonly ArrayDecl[]): AccessBound[] {
  const byName = new Map(arrays.map((a) => [a.name, a]));
  // Scope -> array -> offset hull. Maps keep insertion order, so output order is stable.
  const accesses = new Map<Scope, Map<string, OffsetHull>>();

  // `variableK` reads have no static K offset: their K index is checked as it happens
  // (see `variableKArrays`), so they count here along I and J only.
  const record = (scope: Scope, name: string, offset: Offset, variableK = false): void => {
    let perArray = accesses.get(scope);
    if (!perArray) accesses.set(scope, (perArray = new Map()));
    let hull = perArray.get(name);
    if (!hull) perArray.set(name, (hull = { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] }));
    for (let a = 0; a < 3; a++) {
      if (a === 2 && variableK) continue;
      hull.min[a] = Math.min(hull.min[a], offset[a]);
      hull.max[a] = Math.max(hull.max[a], offset[a]);
    }
  };

  const walkStmts = (scope: Scope, body: readonly Stmt[]): void =>
    forEachStmt(body, (s) => {
      if (s.kind === 'region') {
        walkStmts(regionScope(scope, s.regions, launch.domain), s.body);
        return false;
      }
      if (s.kind === 'assign' || s.kind === 'check') record(scope, s.target, [0, 0, s.kOffset ?? 0], s.kind === 'assign' && s.kVar !== undefined);
      for (const e of stmtExprs(s)) visitExpr(e, (x) => x.kind === 'field' && record(scope, x.name, x.offset, x.kOffset !== undefined));
    });

  for (const vloop of launch.loops) {
    for (const hloop of vloop.body) walkStmts([hloop.i, hloop.j, vloop.k], hloop.body);
  }

  const bounds: AccessBound[] = [];
  for (const [scope, perArray] of accesses) {
    const nonEmpty = and(scope.map((r) => lt(r.lo, r.hi)));
    for (const [name, hull] of perArray) {
      const decl = byName.get(name);
      if (!decl) throw new Error(`launch of '${launch.stencil}' accesses '${name}', which is not a program array`);
      const origin = launch.origins[name];
      const letters = axisIndices(decl.axes);
      if (!origin || origin.length !== letters.length) {
        throw new Error(`launch of '${launch.stencil}' has no origin with ${letters.length} entries for array '${name}'`);
      }
      letters.forEach((a, pos) => {
        if (hull.min[a] > hull.max[a]) return; // only variable-K reads along this axis
        const base = add(origin[pos], scope[a].lo);
        bounds.push({
          array: name,
          axis: pos,
          axisName: AXIS_NAMES[a],
          lo: add(base, int(hull.min[a])),
          hi: add(add(origin[pos], scope[a].hi), int(hull.max[a] - 1)),
          nonEmpty,
        });
      });
    }
  }
  return bounds;
}

/** Every array a launch touches (statically bounded or read at a variable K offset). */
export function launchArrays(launch: Launch): Set<string> {
  const out = new Set<string>();
  for (const v of launch.loops) {
    for (const h of v.body) {
      for (const r of reads(h.body)) out.add(r.name);
      for (const w of writes(h.body)) out.add(w);
    }
  }
  return out;
}

/** Whether a launch reads some array at a data index computed at run time (a checked read). */
export function computedDataReads(launch: Launch): boolean {
  return launch.loops.some((v) => v.body.some((h) => reads(h.body).some((r) => r.computedData)));
}

/** Arrays of a launch read or written at a variable K offset somewhere. */
export function variableKArrays(launch: Launch): Set<string> {
  const out = new Set<string>();
  for (const v of launch.loops) for (const h of v.body) for (const name of variableKNames(h.body)) out.add(name);
  return out;
}

/** The I/J ranges of `scope` narrowed to the hull of its intersections with `regions`. */
function regionScope(scope: Scope, regions: readonly HorizontalRegion[], domain: readonly Expr[]): Scope {
  const narrowed = (axis: 0 | 1): Range => {
    const parts = regions.map((r) => intersect(scope[axis], axis === 0 ? r.i : r.j, domain[axis]));
    if (parts.length === 0) return scope[axis];
    return { lo: parts.map((p) => p.lo).reduce(min), hi: parts.map((p) => p.hi).reduce(max) };
  };
  return [narrowed(0), narrowed(1), scope[2]];
}

function intersect(range: Range, region: RegionAxis, extent: Expr): Range {
  return {
    lo: region.start ? max(range.lo, regionBound(region.start, extent)) : range.lo,
    hi: region.end ? min(range.hi, regionBound(region.end, extent)) : range.hi,
  };
}

/**
 * A region bound as a compute-relative index: `start + o` is `o`, `end + o` is `n + o`
 * with `n` the launch domain along the axis. Shared with the C++ backend so both agree.
 */
export function regionBound(bound: { level: 'start' | 'end'; offset: number }, extent: Expr): Expr {
  return bound.level === 'start' ? int(bound.offset) : add(extent, int(bound.offset));
}
