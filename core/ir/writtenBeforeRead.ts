import type { HLoop, Range, Stmt, VLoop, Launch } from './types.js';
import { le, linear, requiredFloors, type Floors } from './kBounds.js';
import { reads, writes } from './uses.js';
import { someStmt, stmtLists } from './visit.js';

/**
 * Whether every point of a launch's transient is written before it is read. Pooling
 * skips the zero fill of such arrays and tiling skips it per tile; the interpreter fills
 * them with NaN instead, so a wrong proof changes the oracle's results.
 */

function within(inner: Range, off: number, outer: Range): boolean {
  return le(outer.lo, 0, inner.lo, off) && le(inner.hi, off, outer.hi, 0);
}

/** K ranges of writers cover [lo + off, hi + off) when sorted and contiguous (symbolically). */
function kCovered(target: Range, off: number, writers: Range[], floors: Floors): boolean {
  const sorted = [...writers].sort((a, b) => {
    const x = linear(a.lo)!;
    const y = linear(b.lo)!;
    return x.base === y.base ? x.c - y.c : x.base === '' ? -1 : 1;
  });
  // levels below `at + atOff` from the target's first on are covered; stop once the target's
  // end is reached (a writer past it may end where nothing is comparable)
  let at = target.lo;
  let atOff = off;
  const reached = () => le(target.hi, off, at, atOff, floors);
  if (reached()) return true;
  for (const w of sorted) {
    if (le(w.lo, 0, at, atOff, floors) && !le(w.hi, 0, at, atOff, floors)) {
      at = w.hi;
      atOff = 0;
    }
    if (reached()) return true;
  }
  return false;
}

/** Where a nest writes or reads: its loop and nest indices and the statement's index in the nest. */
interface Site {
  vi: number;
  v: VLoop;
  n: number;
  h: HLoop;
  s: number;
}

/**
 * Whether a writer has written level `k + dk` before a reader at level `k` reads it, for
 * every level: an earlier loop ran all its levels; in the same PARALLEL loop an earlier nest
 * ran all its levels; in the same FORWARD (BACKWARD) loop the levels below (above) are
 * done, and at the same level earlier nests and earlier statements are.
 */
function runsBefore(w: Site, r: Site, dk: number): boolean {
  if (w.vi !== r.vi) return w.vi < r.vi;
  if (r.v.order === 'PARALLEL') return w.n < r.n || (dk === 0 && w.n === r.n && w.s < r.s);
  if (dk === 0) return w.n < r.n || (w.n === r.n && w.s < r.s);
  return r.v.order === 'FORWARD' ? dk < 0 : dk > 0;
}

/**
 * True when `name` is written, at every point any statement reads, before that read: all
 * writes are unconditional top-level assignments that read nothing of `name` (or sit in a
 * block after such a write in the same nest), the first access is such a write, no read is
 * at a variable K offset, every read lies inside every writing nest's IJ range, and the levels a read touches (its K offset included) lie inside
 * the union of the K ranges of the writers that run before it (runsBefore).
 */
export function definitelyWritten(name: string, launch: Launch): boolean {
  return writtenBeforeRead(name, launch, false);
}

/**
 * As definitelyWritten, except that reads may also fall outside the writers' IJ range
 * when every writer covers the same one: such points are never written by the launch, so
 * an array only this launch touches keeps its initial value there (del-n damping's `tmp`,
 * read one point beyond the domain that writes it).
 */
export function writtenOrUntouched(name: string, launch: Launch): boolean {
  return writtenBeforeRead(name, launch, true);
}

function writtenBeforeRead(name: string, launch: Launch, untouchedOutside: boolean): boolean {
  const writers: Site[] = [];
  const readers: { site: Site; offset: [number, number, number]; variableK: boolean }[] = [];
  let first: 'write' | 'read' | null = null;
  const shiftedWrite = (stmts: Stmt[]): boolean => someStmt(stmts, (s) => s.kind === 'assign' && s.target === name && (!!s.kOffset || !!s.kVar));
  const plainWrite = (s: Stmt): boolean => s.kind === 'assign' && s.target === name && !s.kOffset && !s.kVar;
  // A write inside a block (a region, an if) covers only some points; after a plain write of
  // the same point earlier in the nest it only rewrites a written point (PPM's edge values).
  const nestedWrite = (stmts: Stmt[]): boolean =>
    stmts.some((s, si) => stmtLists(s).some((l) => writes(l).has(name)) && !stmts.slice(0, si).some(plainWrite));
  for (const [vi, v] of launch.loops.entries()) {
    for (const [n, h] of v.body.entries()) {
      if (nestedWrite(h.body) || shiftedWrite(h.body)) return false;
      for (const [si, s] of h.body.entries()) {
        const r = reads([s]).filter((x) => x.name === name);
        const isWrite = s.kind === 'assign' && s.target === name;
        // a neighbour read in the writing nest may see a point not written yet
        if (r.some((x) => x.offset[0] !== 0 || x.offset[1] !== 0) && writes(h.body).has(name)) return false;
        if (isWrite && r.length && first === null) return false;
        if (s.kind === 'check' && s.target === name && first === null) return false;
        if (first === null && (isWrite || r.length)) first = isWrite ? 'write' : 'read';
        const site = { vi, v, n, h, s: si };
        for (const x of r) readers.push({ site, offset: x.offset, variableK: x.variableK });
        // (after its reads: a statement reading what it writes reads the value from before)
        if (isWrite && !writers.some((w) => w.h === h)) writers.push(site);
      }
    }
  }
  if (first !== 'write') return false;
  const floors = requiredFloors(launch);
  const ij = (w: Site) => JSON.stringify([w.h.i, w.h.j]);
  const outsideUntouched = untouchedOutside && writers.every((w) => ij(w) === ij(writers[0]));
  for (const { site, offset, variableK } of readers) {
    if (variableK) return false;
    const earlier = writers.filter((w) => runsBefore(w, site, offset[2])).map((w) => w.v.k);
    if (!kCovered(site.v.k, offset[2], earlier, floors)) return false;
    for (const w of writers) {
      if (outsideUntouched) continue;
      if (!within(site.h.i, offset[0], w.h.i) || !within(site.h.j, offset[1], w.h.j)) return false;
    }
  }
  return true;
}
