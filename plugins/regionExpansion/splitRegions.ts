import type { AxisBound, HorizontalRegion, Program, RegionAxis, StencilDef, Stmt } from '../../core/ir/types.js';

/**
 * Splittable region expansion: when an interval's body is only horizontal regions that
 * miss the interior (edges, corners), each region statement is marked `split` and library
 * expansion gives it a loop over just its own bounds, with no per-point mask. Regions of
 * one statement are split only when they are pairwise disjoint, so no point runs twice.
 */

/** Width of an axis when both bounds are on the same side of the domain. */
function thinWidth(a: RegionAxis): number | null {
  if (!a.start || !a.end || a.start.level !== a.end.level) return null;
  return a.end.offset - a.start.offset;
}

/** A region misses the interior when one of its axes is a band of a few points at an edge. */
function missesInterior(r: HorizontalRegion): boolean {
  const w = [thinWidth(r.i), thinWidth(r.j)];
  return w.some((x) => x !== null && x <= 8);
}

function disjointAxis(a: RegionAxis, b: RegionAxis): boolean {
  const lt = (x: AxisBound | null, y: AxisBound | null) => !!x && !!y && x.level === y.level && x.offset <= y.offset;
  return lt(a.end, b.start) || lt(b.end, a.start);
}

function disjoint(regions: HorizontalRegion[]): boolean {
  for (let x = 0; x < regions.length; x++)
    for (let y = x + 1; y < regions.length; y++) if (!disjointAxis(regions[x].i, regions[y].i) && !disjointAxis(regions[x].j, regions[y].j)) return false;
  return true;
}

function splitStencil(def: StencilDef): StencilDef {
  return {
    ...def,
    computations: def.computations.map((c) => ({
      ...c,
      intervals: c.intervals.map((iv) => {
        const splittable = iv.body.length > 0 && iv.body.every((s) => s.kind === 'region' && s.regions.every(missesInterior) && disjoint(s.regions));
        if (!splittable) return iv;
        return { ...iv, body: iv.body.map((s): Stmt => (s.kind === 'region' ? { ...s, split: true } : s)) };
      }),
    })),
  };
}

export function splitRegions(p: Program): Program {
  const stencils: Record<string, StencilDef> = {};
  for (const [k, v] of Object.entries(p.stencils)) stencils[k] = splitStencil(v);
  return { ...p, stencils };
}
