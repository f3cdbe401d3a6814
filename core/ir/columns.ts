import type { ArrayDecl, VLoop } from './types.js';
import { reads, writes } from './uses.js';

/** Whether a FORWARD/BACKWARD VLoop reads, at a horizontal offset, an array it writes. */
export function needsLevelBarrier(v: VLoop): boolean {
  const bodies = v.body.flatMap((h) => h.body);
  const written = writes(bodies);
  return reads(bodies).some((r) => written.has(r.name) && (r.offset[0] !== 0 || r.offset[1] !== 0));
}

/**
 * Whether the columns of a FORWARD/BACKWARD sweep are independent, so it may run column
 * by column: its nests share one IJ range, every array it writes has both I and J (so
 * each column writes its own elements), and nothing it writes is read at a horizontal
 * offset (which would see a neighbour column at another level).
 */
export function independentColumns(v: VLoop, arrays: ReadonlyMap<string, ArrayDecl>): boolean {
  const first = v.body[0];
  if (!first || v.body.some((h) => JSON.stringify([h.i, h.j]) !== JSON.stringify([first.i, first.j]))) return false;
  for (const name of writes(v.body.flatMap((h) => h.body))) {
    const axes = arrays.get(name)?.axes ?? '';
    if (!axes.includes('I') || !axes.includes('J')) return false;
  }
  return !needsLevelBarrier(v);
}

/**
 * Whether a FORWARD/BACKWARD VLoop carries a recurrence along K: it reads, at a K offset,
 * an array it writes, so each level of a column waits on the level before.
 */
export function carriesRecurrence(v: VLoop): boolean {
  if (v.order === 'PARALLEL') return false;
  const bodies = v.body.flatMap((h) => h.body);
  const written = writes(bodies);
  return reads(bodies).some((r) => written.has(r.name) && !r.variableK && r.offset[2] !== 0);
}
