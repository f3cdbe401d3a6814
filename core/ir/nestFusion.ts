import type { VLoop } from './types.js';
import { reads, writes } from './uses.js';
import { forEachStmt } from './visit.js';
import { regionsOnly } from './regionsOnly.js';

/** A nest's delay in a fused loop: its point (a, b) runs at iteration (a + d[0], b + d[1]) (outer axis first). */
export type Delay = [number, number];

/** Whether `a` comes before `b` in the fused loop's order (outer axis first), or with it. */
function lexLE(a: Delay, b: Delay): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]);
}

/**
 * The delays that let the nests of a PARALLEL loop run fused, point by point along the two
 * horizontal axes (`outer` is the axis of the outer loop: 0 for I, 1 for J): at iteration
 * (r, c) nest n computes its point (r - d[0], c - d[1]), whole K column, after the nests
 * before it. Every order between two nests that the unfused loop gives and the result can
 * see is kept: a point of m written before n reads it (read after write), read before n
 * overwrites it (write after read), written before n writes it again. Each such pair of
 * points lies at a fixed horizontal offset, so it is kept where n's delay is at least m's
 * delay plus that offset in the fused loop's order (lexicographic, outer axis first); each
 * nest takes the smallest delay that satisfies all of them. A nest's own points keep their
 * order (rows, then columns, K innermost), and K offsets need nothing: a column is whole.
 * With `strips` (codegen.fusedStrip) the delay holds along each axis on its own, not only in
 * the loop's order: a pair's source then lies in no later row and no later column, so the
 * loop may also run its columns in strips, all rows of one strip before the next.
 *
 * Undefined where the loop gains nothing (one nest, or FORWARD/BACKWARD) or where the order
 * of points can be seen otherwise: debug checks and `while` loops report the first point
 * that fails, and variable-K accesses record theirs. Also where a nest has horizontal
 * regions, unless `regions` (codegen.fuseRegions: the code generator then tests them once per
 * column, plugins/codegen/regionVersions.ts) and no nest is only regions (unfused, a tile runs
 * such a nest over its regions' box, regionClip.ts; fused, every column of the tile tests them:
 * del-n damping's corner copies, 23 -> 34 us a call at 12x12x79, timed under load). Unfused, g++ hoists their tests out of the loops;
 * fused, it did not (callgrind, -march=haswell, 64x64x80: del-n damping 23.3 -> 28.4
 * instructions a point, ppm 22.7 -> 23.3, and 43.9 with a shared K loop).
 */
export function fusionDelays(v: VLoop, outer: 0 | 1, regions = false, strips = false): Delay[] | undefined {
  if (v.order !== 'PARALLEL' || v.body.length < 2) return undefined;
  const inner = outer === 0 ? 1 : 0;
  const nests = v.body.map((h) => ({ reads: reads(h.body), writes: writes(h.body) }));
  let seen = false;
  for (const h of v.body)
    forEachStmt(h.body, (s) => {
      if (s.kind === 'while' || s.kind === 'check' || (s.kind === 'region' && !regions) || (s.kind === 'assign' && s.kVar)) seen = true;
    });
  if (seen || nests.some((n) => n.reads.some((r) => r.variableK || r.computedData))) return undefined;
  if (regions && v.body.some((h) => regionsOnly(h) !== undefined)) return undefined;
  const delays: Delay[] = [];
  nests.forEach((n, ni) => {
    let d: Delay = [0, 0];
    const atLeast = (b: Delay) => {
      if (strips) d = [Math.max(d[0], b[0]), Math.max(d[1], b[1])];
      else if (!lexLE(b, d)) d = b;
    };
    for (let mi = 0; mi < ni; mi++) {
      const m = nests[mi];
      const dm = delays[mi];
      // read after write: n's point p reads m's point p + o
      for (const r of n.reads) if (m.writes.has(r.name)) atLeast([dm[0] + r.offset[outer], dm[1] + r.offset[inner]]);
      for (const x of n.writes) {
        // write after read: m's point p reads n's point p + o before n writes it
        for (const r of m.reads) if (r.name === x) atLeast([dm[0] - r.offset[outer], dm[1] - r.offset[inner]]);
        // write after write
        if (m.writes.has(x)) atLeast(dm);
      }
    }
    delays.push(d);
  });
  return delays;
}

/**
 * Rows (along the outer axis) array `name` needs in a fused loop with `delays` (a power of
 * two, so a row's slot is its index masked): at iteration r a nest with delay d accessing it
 * at outer offset o touches row r - d + o, so row a is touched from iteration a + min(d - o)
 * to a + max(d - o), and rows more than that span apart are never live together. Undefined
 * if no nest of `v` touches it.
 */
export function rollingRows(v: VLoop, delays: readonly Delay[], outer: 0 | 1, name: string): number | undefined {
  const at: number[] = [];
  v.body.forEach((h, n) => {
    for (const r of reads(h.body)) if (r.name === name) at.push(delays[n][0] - r.offset[outer]);
    if (writes(h.body).has(name)) at.push(delays[n][0]);
  });
  if (!at.length) return undefined;
  const span = Math.max(...at) - Math.min(...at) + 1;
  let rows = 1;
  while (rows < span) rows *= 2;
  return rows;
}

/**
 * Whether the fused nests may also share one K loop (each level of every nest's point in
 * turn): no array the loop writes is accessed at a K offset, so level k of a nest reads
 * only level k of what the nests before it wrote, and no nest writes a level another
 * reads at a different one; and no `if` statement, nor horizontal region (whose tests are
 * taken once per column of each nest, regionVersions.ts).
 */
export function levelsJam(v: VLoop): boolean {
  const written = new Set<string>();
  for (const h of v.body) writes(h.body, written);
  let refused = false;
  for (const h of v.body) {
    if (reads(h.body).some((r) => written.has(r.name) && r.offset[2] !== 0)) refused = true;
    forEachStmt(h.body, (s) => {
      // (and no `if`: a conditional store kept g++ from vectorizing the shared loop)
      if ((s.kind === 'assign' && (s.kOffset ?? 0) !== 0) || s.kind === 'if' || s.kind === 'region') refused = true;
    });
  }
  return !refused;
}
