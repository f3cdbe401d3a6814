import type { ArrayDecl, Expr, HorizontalRegion, Offset, PStmt, Range, RegionAxis, Stmt } from './types.js';
import { axisIndices } from './types.js';
import { reads, writes } from './walk.js';

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
 * Reads at a variable K offset (`kOffset`) count along I and J only; their K index is only
 * known as they happen, so backends check each one then (`variableKReads` lists them).
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

export type LaunchStmt = Extract<PStmt, { kind: 'launch' }>;

const AXIS_NAMES = ['I', 'J', 'K'] as const;

/** The ranges of one loop scope (an HLoop, or a region inside it), indexed I, J, K. */
type Scope = [Range, Range, Range];

interface OffsetHull {
  min: Offset;
  max: Offset;
}

export function launchAccessBounds(launch: LaunchStmt, arrays: readonly ArrayDecl[]): AccessBound[] {
  const byName = new Map(arrays.map((a) => [a.name, a]));
  // Scope -> array -> offset hull. Maps keep insertion order, so output order is stable.
  const accesses = new Map<Scope, Map<string, OffsetHull>>();

  // `variableK` reads have no static K offset: their K index is checked as it happens
  // (see `variableKReads`), so they count here along I and J only.
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

  const walkExpr = (scope: Scope, e: Expr): void => {
    switch (e.kind) {
      case 'field':
        record(scope, e.name, e.offset, e.kOffset !== undefined);
        if (e.kOffset) walkExpr(scope, e.kOffset);
        return;
      case 'unary':
      case 'cast':
        walkExpr(scope, e.arg);
        return;
      case 'binary':
        walkExpr(scope, e.left);
        walkExpr(scope, e.right);
        return;
      case 'ternary':
        walkExpr(scope, e.cond);
        walkExpr(scope, e.then);
        walkExpr(scope, e.else);
        return;
      case 'call':
        for (const arg of e.args) walkExpr(scope, arg);
        return;
      case 'lit':
      case 'scalar':
      case 'shape':
        return;
    }
  };

  const walkStmts = (scope: Scope, body: readonly Stmt[]): void => {
    for (const s of body) {
      switch (s.kind) {
        case 'assign':
          record(scope, s.target, [0, 0, s.kOffset ?? 0]);
          walkExpr(scope, s.value);
          break;
        case 'let':
          walkExpr(scope, s.value);
          break;
        case 'check':
          record(scope, s.target, [0, 0, s.kOffset ?? 0]);
          break;
        case 'if':
          walkExpr(scope, s.cond);
          walkStmts(scope, s.then);
          walkStmts(scope, s.else);
          break;
        case 'while':
          walkExpr(scope, s.cond);
          walkStmts(scope, s.body);
          break;
        case 'region':
          walkStmts(regionScope(scope, s.regions, launch.domain), s.body);
          break;
      }
    }
  };

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
export function launchArrays(launch: LaunchStmt): Set<string> {
  const out = new Set<string>();
  for (const v of launch.loops) {
    for (const h of v.body) {
      for (const r of reads(h.body)) out.add(r.name);
      for (const w of writes(h.body)) out.add(w);
    }
  }
  return out;
}

/** Arrays of a launch read at a variable K offset somewhere. */
export function variableKReads(launch: LaunchStmt): Set<string> {
  const out = new Set<string>();
  for (const v of launch.loops) for (const h of v.body) for (const r of reads(h.body)) if (r.variableK) out.add(r.name);
  return out;
}

/** The I/J ranges of `scope` narrowed to the hull of its intersections with `regions`. */
function regionScope(scope: Scope, regions: readonly HorizontalRegion[], domain: readonly Expr[]): Scope {
  const narrowed = (axis: 0 | 1): Range => {
    const parts = regions.map((r) => intersect(scope[axis], axis === 0 ? r.i : r.j, domain[axis]));
    if (parts.length === 0) return scope[axis];
    return { lo: parts.map((p) => p.lo).reduce(minExpr), hi: parts.map((p) => p.hi).reduce(maxExpr) };
  };
  return [narrowed(0), narrowed(1), scope[2]];
}

function intersect(range: Range, region: RegionAxis, extent: Expr): Range {
  return {
    lo: region.start ? maxExpr(range.lo, regionBound(region.start, extent)) : range.lo,
    hi: region.end ? minExpr(range.hi, regionBound(region.end, extent)) : range.hi,
  };
}

/**
 * A region bound as a compute-relative index: `start + o` is `o`, `end + o` is `n + o`
 * with `n` the launch domain along the axis. Shared with the C++ backend so both agree.
 */
export function regionBound(bound: { level: 'start' | 'end'; offset: number }, extent: Expr): Expr {
  return bound.level === 'start' ? int(bound.offset) : add(extent, int(bound.offset));
}

// Small int64 expression builders that fold literals, so the bounds stay readable.

export function int(value: number): Expr {
  return { kind: 'lit', value, dtype: 'int64' };
}

function litValue(e: Expr): number | undefined {
  return e.kind === 'lit' && typeof e.value === 'number' ? e.value : undefined;
}

export function add(a: Expr, b: Expr): Expr {
  const x = litValue(a);
  const y = litValue(b);
  if (x !== undefined && y !== undefined) return int(x + y);
  if (y === 0) return a;
  if (x === 0) return b;
  if (y !== undefined && y < 0) return { kind: 'binary', op: '-', left: a, right: int(-y), dtype: 'int64' };
  return { kind: 'binary', op: '+', left: a, right: b, dtype: 'int64' };
}

function minExpr(a: Expr, b: Expr): Expr {
  const x = litValue(a);
  const y = litValue(b);
  if (x !== undefined && y !== undefined) return int(Math.min(x, y));
  return { kind: 'call', fn: 'min', args: [a, b], dtype: 'int64' };
}

function maxExpr(a: Expr, b: Expr): Expr {
  const x = litValue(a);
  const y = litValue(b);
  if (x !== undefined && y !== undefined) return int(Math.max(x, y));
  return { kind: 'call', fn: 'max', args: [a, b], dtype: 'int64' };
}

function lt(a: Expr, b: Expr): Expr {
  const x = litValue(a);
  const y = litValue(b);
  if (x !== undefined && y !== undefined) return { kind: 'lit', value: x < y, dtype: 'bool' };
  return { kind: 'binary', op: '<', left: a, right: b, dtype: 'bool' };
}

function and(terms: Expr[]): Expr {
  const open = terms.filter((t) => !(t.kind === 'lit' && t.value === true));
  if (open.some((t) => t.kind === 'lit' && t.value === false)) return { kind: 'lit', value: false, dtype: 'bool' };
  if (open.length === 0) return { kind: 'lit', value: true, dtype: 'bool' };
  return open.reduce((l, r) => ({ kind: 'binary', op: 'and', left: l, right: r, dtype: 'bool' }));
}
