import type { HLoop, Stmt } from '../../core/ir/types.js';
import { forEachStmt } from '../../core/ir/visit.js';
import type { Codegen } from './Codegen.js';
import { regionCondition } from './ExprEmitter.js';

/** The most region statements a nest's K loop is copied for (2^n copies). */
const MAX_VERSIONED = 3;

/**
 * A nest's K loop at one column, once per combination of its horizontal regions' tests
 * (codegen.fuseRegions). A region's test depends on i and j only, so it is taken once, before
 * the loop, and each copy of the loop runs only the statements of the regions that hold: no
 * test inside the K loop. In fused nests g++ did not hoist the tests itself (the K loop then
 * ran one scalar iteration a level: ppm_advection 22.7 -> 43.9 instructions a point,
 * core/ir/nestFusion.ts). Every copy runs a point's statements in the unfused order, so
 * results are bitwise the same. `kLoop` writes the K loop, its body through cg.points.
 * Nests with no region, or more than MAX_VERSIONED, get the one loop with its tests inside.
 */
export function regionVersions(cg: Codegen, h: HLoop, kLoop: () => void): void {
  const regions: Stmt[] = [];
  forEachStmt(h.body, (s) => {
    if (s.kind === 'region') regions.push(s);
  });
  if (!regions.length || regions.length > MAX_VERSIONED) {
    kLoop();
    return;
  }
  const w = cg.w;
  const test = (n: number) => `orch_rg${n}`;
  regions.forEach((s, n) => {
    if (s.kind === 'region') w.line(`const bool ${test(n)} = ${regionCondition(s.regions)};`);
  });
  const versions = 1 << regions.length;
  for (let v = 0; v < versions; v++) {
    const holds = regions.map((_, n) => (v & (1 << n)) !== 0);
    const cond = holds.map((h, n) => (h ? test(n) : `!${test(n)}`)).join(' && ');
    if (v === 0) w.open(`if (${cond}) {`);
    else if (v < versions - 1) w.reopen(`} else if (${cond}) {`);
    else w.reopen('} else {');
    cg.points.fixedRegions = new Map(regions.map((s, n) => [s, holds[n]]));
    try {
      kLoop();
    } finally {
      cg.points.fixedRegions = undefined;
    }
  }
  w.close();
}
