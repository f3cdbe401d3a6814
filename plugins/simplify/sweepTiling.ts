import type { ArrayDecl, Launch } from '../../core/ir/types.js';
import { carriesRecurrence } from '../../core/ir/columns.js';
import { reads, variableKNames, writes } from '../../core/ir/uses.js';

/**
 * Whether a FORWARD/BACKWARD launch with nothing tile-local is still worth tiling, for its
 * tiles to stage their fields (plugins/codegen/sweepStaging.ts) and run each level as rows
 * across the tile's columns. Untiled, such a sweep runs column by column: a recurrence
 * (a level reading what the sweep wrote at the level before) then waits on one chain's
 * latency per level, unvectorized, while across columns the chains are independent and
 * vectorize. The cost model, per point (callgrind, -march=haswell, 38x38x80, FORWARD
 * b = b[k-1] * c + a):
 * - column by column: ~6 instructions, but a chain of a multiply and an add, ~8 cycles
 *   of latency per level, which out-of-order execution barely hides (the next column's
 *   chain lies ~6 instructions x levels ahead);
 * - staged: ~1.6 instructions per element copied in or out (about 0.5 cycle), plus the
 *   statements vectorized across the row.
 * So a recurrence pays for up to MAX_COPIES copies per point; without one the column
 * loop is throughput-bound (g++ may vectorize it along K) and the copies would only add.
 * Fields the tile could not stage (data dimensions, variable K or computed data indices)
 * would be read across columns in place, strided by the column length: refused, as are
 * written arrays that are not plain IJK fields.
 */
const MAX_COPIES = 12;

export function sweepTilePays(l: Launch, decl: ReadonlyMap<string, ArrayDecl>): boolean {
  if (l.loops.every((v) => v.order === 'PARALLEL')) return false;
  const touched = new Set<string>();
  const written = new Set<string>();
  let recurrence = false;
  for (const v of l.loops) {
    const body = v.body.flatMap((h) => h.body);
    const w = writes(body);
    const rs = reads(body);
    if (variableKNames(body).size) return false;
    for (const n of w) written.add(n);
    for (const r of rs) {
      touched.add(r.name);
      if (r.variableK || r.computedData) return false;
    }
    if (carriesRecurrence(v)) recurrence = true;
  }
  for (const n of written) touched.add(n);
  let copies = 0;
  for (const name of touched) {
    const a = decl.get(name);
    if (!a) continue; // a scalar
    const stageable = a.axes === 'IJK' && !a.dims?.length;
    // a plane (IJ) or a K column reads the same few lines at every level of a tile: fine in place
    if (!stageable && (written.has(name) || (a.axes.includes('K') && a.axes.length > 1))) return false;
    if (stageable) copies += written.has(name) ? 2 : 1;
  }
  return recurrence && copies <= MAX_COPIES;
}
