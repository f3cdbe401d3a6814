import type { HorizontalRegion } from '../../core/ir/types.js';
import { regionBound } from './ExprEmitter.js';
import type { Writer } from './Writer.js';

/**
 * A nest whose every statement is a horizontal region (core/ir/regionsOnly.ts) runs
 * nothing outside its regions, so a tile runs it over the bounding box of its regions within
 * the tile's range instead of testing them at every point of the tile, and sizes its
 * tile-local boxes to that: corner and edge regions touch a few tiles, the others skip it.
 *
 * Narrows the mutable range variables `[ilo, ihi) x [jlo, jhi)` in place to the bounding box
 * of their intersections with `regions` (empty: `ihi = ilo`, `jhi = jlo`). The points dropped
 * are in no region, where the nest's statements do nothing; the ones kept still test them.
 */
export function narrowToRegions(w: Writer, regions: readonly HorizontalRegion[], v: { ilo: string; ihi: string; jlo: string; jhi: string }): void {
  w.open('{');
  w.line('int64_t ri0 = INT64_MAX, ri1 = INT64_MIN, rj0 = INT64_MAX, rj1 = INT64_MIN;');
  for (const r of regions) {
    const lo = (b: HorizontalRegion['i']['start'], base: string, dom: string) => (b ? `std::max<int64_t>(${base}, ${regionBound(b, dom)})` : base);
    const hi = (b: HorizontalRegion['i']['end'], base: string, dom: string) => (b ? `std::min<int64_t>(${base}, ${regionBound(b, dom)})` : base);
    w.open('{');
    w.line(`const int64_t a0 = ${lo(r.i.start, v.ilo, 'dom0')}, a1 = ${hi(r.i.end, v.ihi, 'dom0')}, b0 = ${lo(r.j.start, v.jlo, 'dom1')}, b1 = ${hi(r.j.end, v.jhi, 'dom1')};`);
    w.line('if (a0 < a1 && b0 < b1) { ri0 = std::min<int64_t>(ri0, a0); ri1 = std::max<int64_t>(ri1, a1); rj0 = std::min<int64_t>(rj0, b0); rj1 = std::max<int64_t>(rj1, b1); }');
    w.close();
  }
  w.line(`if (ri0 < ri1) { ${v.ilo} = ri0; ${v.ihi} = ri1; ${v.jlo} = rj0; ${v.jhi} = rj1; } else { ${v.ihi} = ${v.ilo}; ${v.jhi} = ${v.jlo}; }`);
  w.close();
}
