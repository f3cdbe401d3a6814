import type { Expr, Launch, Program, VLoop } from '../../core/ir/types.js';
import { le, requiredFloors, type Floors } from '../../core/ir/kBounds.js';
import { reads, writes, type Access } from '../../core/ir/uses.js';
import { mapStmtLists, someStmt } from '../../core/ir/visit.js';

/**
 * Sweep fusion (simplify, second run): PARALLEL loops right before a FORWARD (BACKWARD)
 * sweep over the same K range run level by level inside it, each level's PARALLEL nests
 * before the sweep's nests at that level. A Thomas solver's coefficients (a, b, c) are then
 * computed where the elimination reads them, and scalarization makes them point locals
 * instead of arrays a tile writes and reads back.
 *
 * Results cannot change: the sweep reads the PARALLEL loops' outputs only in the same column
 * at levels already done (K offset 0, or behind the sweep), the PARALLEL loops read their own
 * outputs only at offset zero and nothing the sweep writes, and the two write no array in
 * common. The K ranges are cut at every bound of either side, which must be provably ordered.
 */

/** The K bounds of both sides, in increasing order, or null when some pair is not provably ordered. */
function orderedBounds(loops: VLoop[], floors: Floors): Expr[] | null {
  const bounds: Expr[] = [];
  const key = (e: Expr) => JSON.stringify(e);
  for (const v of loops) for (const b of [v.k.lo, v.k.hi]) if (!bounds.some((x) => key(x) === key(b))) bounds.push(b);
  // insertion sort: every bound must compare with the ones it passes
  const out: Expr[] = [];
  for (const b of bounds) {
    let at = out.length;
    while (at > 0 && !le(out[at - 1], 0, b, 0, floors)) {
      if (!le(b, 0, out[at - 1], 0, floors)) return null;
      at--;
    }
    out.splice(at, 0, b);
  }
  for (let i = 1; i < out.length; i++) if (!le(out[i - 1], 0, out[i], 0, floors)) return null;
  return out;
}

/** Loops that tile one range without gaps, in order (`down`: each loop below the one before). */
function contiguous(loops: VLoop[], down: boolean): boolean {
  const key = (e: Expr) => JSON.stringify(e);
  return loops.every((v, i) => i === 0 || (down ? key(v.k.hi) === key(loops[i - 1].k.lo) : key(v.k.lo) === key(loops[i - 1].k.hi)));
}

function span(loops: VLoop[], down: boolean): { lo: Expr; hi: Expr } {
  return down ? { lo: loops[loops.length - 1].k.lo, hi: loops[0].k.hi } : { lo: loops[0].k.lo, hi: loops[loops.length - 1].k.hi };
}

/** Whether moving the PARALLEL loops `par` into the sweep `sweep` keeps every value every statement reads. */
function legal(par: VLoop[], sweep: VLoop[]): boolean {
  const down = sweep[0].order === 'BACKWARD';
  const body = (ls: VLoop[]) => ls.flatMap((v) => v.body.flatMap((h) => h.body));
  const pBody = body(par);
  const sBody = body(sweep);
  // shifted writes (f[0, 0, 1] = ...) write other levels than the current one
  if (someStmt([...pBody, ...sBody], (s) => (s.kind === 'assign' && (!!s.kOffset || !!s.kVar)) || (s.kind === 'check' && !!s.kOffset))) return false;
  const pWrites = writes(pBody);
  const sWrites = writes(sBody);
  for (const w of pWrites) if (sWrites.has(w)) return false;
  // what the PARALLEL loops write is read in its own column only, so a level of the fused
  // sweep never waits on its neighbours' columns (a GPU thread keeps its column)
  const sideways = (r: Access) => r.offset[0] !== 0 || r.offset[1] !== 0;
  for (const r of reads(pBody)) {
    if (sWrites.has(r.name)) return false;
    if (pWrites.has(r.name) && (r.variableK || r.offset[2] !== 0 || sideways(r))) return false;
  }
  for (const r of reads(sBody)) {
    if (!pWrites.has(r.name)) continue;
    if (r.variableK || sideways(r) || (down ? r.offset[2] < 0 : r.offset[2] > 0)) return false;
  }
  return true;
}

/** The PARALLEL loops `par` and the sweep `sweep` as one sweep cut at every bound, or null. */
function fuse(par: VLoop[], sweep: VLoop[], floors: Floors): VLoop[] | null {
  const down = sweep[0].order === 'BACKWARD';
  if (!contiguous(par, false) || !contiguous(sweep, down) || !legal(par, sweep)) return null;
  const key = (e: Expr) => JSON.stringify(e);
  const p = span(par, false);
  const s = span(sweep, down);
  if (key(p.lo) !== key(s.lo) || key(p.hi) !== key(s.hi)) return null;
  const bounds = orderedBounds([...par, ...sweep], floors);
  if (!bounds) return null;
  const covering = (loops: VLoop[], lo: Expr, hi: Expr) => loops.find((v) => le(v.k.lo, 0, lo, 0, floors) && le(hi, 0, v.k.hi, 0, floors));
  const pieces: VLoop[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const lo = bounds[i];
    const hi = bounds[i + 1];
    const pv = covering(par, lo, hi);
    const sv = covering(sweep, lo, hi);
    if (!pv || !sv) return null;
    pieces.push({ order: sv.order, k: { lo, hi }, body: [...pv.body, ...sv.body], loc: sv.loc });
  }
  return down ? pieces.reverse() : pieces;
}

function fuseLaunch(l: Launch): Launch {
  const floors = requiredFloors(l);
  const loops: VLoop[] = [];
  let i = 0;
  while (i < l.loops.length) {
    let j = i;
    while (j < l.loops.length && l.loops[j].order === 'PARALLEL') j++;
    let e = j;
    while (e < l.loops.length && l.loops[e].order !== 'PARALLEL' && l.loops[e].order === l.loops[j].order) e++;
    const fused = j > i && e > j ? fuse(l.loops.slice(i, j), l.loops.slice(j, e), floors) : null;
    if (fused) {
      loops.push(...fused);
      i = e;
    } else {
      loops.push(...l.loops.slice(i, Math.max(j, i + 1)));
      i = Math.max(j, i + 1);
    }
  }
  return { ...l, loops };
}

export function sweepFusion(p: Program): Program {
  return { ...p, body: mapStmtLists(p.body, (list) => list.map((s) => (s.kind === 'launch' ? fuseLaunch(s) : s))) };
}
