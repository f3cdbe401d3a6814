import type { AxisBound, Expr, HorizontalRegion, RegionAxis, Stmt } from '../../core/ir/types.js';
import { forEachStmt, stmtExprs, visitExpr } from '../../core/ir/visit.js';
import { boundRank } from '../../core/ir/intervals.js';

/**
 * Which points of each field a statement reads, given the horizontal range it runs on,
 * with horizontal regions taken into account: a read inside `with horizontal(region[...])`
 * happens only where the region meets the range, so a corner copy at offset +5 needs the
 * field near that corner, not along the whole edge (PyFV3's corner fills would otherwise
 * make temporaries, and then reads of their inputs, reach far past the halo).
 *
 * Ranges are per axis, from `lo` to `hi` (exclusive), each bound relative to the start
 * (0) or the end (n) of the domain. Bounds of the two kinds are ordered as if the domain
 * were larger than every offset (the assumption GT4Py's extents make too); a domain that
 * is smaller makes some range empty, never an access unchecked, since launches check
 * their accesses (core/ir/accessBounds.ts) with the exact region arithmetic.
 */

/** A horizontal range (or the extent of one) as offsets from the domain: `[ilo, n_i + ihi)` × `[jlo, n_j + jhi)`. */
export interface Extent {
  ilo: number;
  ihi: number;
  jlo: number;
  jhi: number;
}

export const ZERO_EXTENT: Extent = { ilo: 0, ihi: 0, jlo: 0, jhi: 0 };

export function unionExtent(a: Extent, b: Extent): Extent {
  return { ilo: Math.min(a.ilo, b.ilo), ihi: Math.max(a.ihi, b.ihi), jlo: Math.min(a.jlo, b.jlo), jhi: Math.max(a.jhi, b.jhi) };
}

export function sameExtent(a: Extent, b: Extent): boolean {
  return a.ilo === b.ilo && a.ihi === b.ihi && a.jlo === b.jlo && a.jhi === b.jhi;
}

/** One read: the field, the points it needs (as an extent), and its K offset. */
interface ReadNeed {
  name: string;
  need: Extent;
  /** Constant K offset of the read (variable K offsets are checked as they happen). */
  k: number;
}

const rank = boundRank;
const maxBound = (a: AxisBound, b: AxisBound): AxisBound => (rank(a) >= rank(b) ? a : b);
const minBound = (a: AxisBound, b: AxisBound): AxisBound => (rank(a) <= rank(b) ? a : b);

interface Span {
  lo: AxisBound;
  hi: AxisBound;
}

/** The I and J spans a statement runs on (its extent), possibly several boxes after regions. */
type Boxes = [Span, Span][];

function extentBoxes(ext: Extent): Boxes {
  return [[{ lo: { level: 'start', offset: ext.ilo }, hi: { level: 'end', offset: ext.ihi } }, { lo: { level: 'start', offset: ext.jlo }, hi: { level: 'end', offset: ext.jhi } }]];
}

function narrow(span: Span, axis: RegionAxis): Span | null {
  const lo = axis.start ? maxBound(span.lo, axis.start) : span.lo;
  const hi = axis.end ? minBound(span.hi, axis.end) : span.hi;
  return rank(lo) < rank(hi) ? { lo, hi } : null;
}

function inRegions(boxes: Boxes, regions: readonly HorizontalRegion[]): Boxes {
  const out: Boxes = [];
  for (const [i, j] of boxes) {
    for (const r of regions) {
      const ni = narrow(i, r.i);
      const nj = narrow(j, r.j);
      if (ni && nj) out.push([ni, nj]);
    }
  }
  return out;
}

/**
 * The extent a span shifted by `o` needs: a start-relative low end can reach below the
 * domain, an end-relative high end past it; the other kinds lie inside the domain.
 */
function needOf(span: Span, o: number): [number, number] {
  return [span.lo.level === 'start' ? Math.min(0, span.lo.offset + o) : 0, span.hi.level === 'end' ? Math.max(0, span.hi.offset + o) : 0];
}

/** Every read of `stmts` run on `ext`, with the points it needs. */
export function readNeeds(stmts: readonly Stmt[], ext: Extent): ReadNeed[] {
  const out: ReadNeed[] = [];
  const exprReads = (e: Expr, boxes: Boxes) => {
    if (!boxes.length) return;
    visitExpr(e, (x) => {
      if (x.kind !== 'field') return;
      let need: Extent | null = null;
      for (const [i, j] of boxes) {
        const [ilo, ihi] = needOf(i, x.offset[0]);
        const [jlo, jhi] = needOf(j, x.offset[1]);
        const box = { ilo, ihi, jlo, jhi };
        need = need ? unionExtent(need, box) : box;
      }
      out.push({ name: x.name, need: need!, k: x.kOffset ? 0 : x.offset[2] });
    });
  };
  const walk = (list: readonly Stmt[], boxes: Boxes): void =>
    forEachStmt(list, (s) => {
      if (s.kind === 'region') {
        walk(s.body, inRegions(boxes, s.regions));
        return false;
      }
      for (const e of stmtExprs(s)) exprReads(e, boxes);
    });
  walk(stmts, extentBoxes(ext));
  return out;
}
