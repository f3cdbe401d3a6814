import type { Expr, HLoop, Range, Stmt, VLoop, Launch } from './types.js';
import { reads, writes } from './uses.js';
import { someStmt, stmtLists } from './visit.js';

/**
 * Whether every point of a launch's transient is written before it is read. Pooling
 * skips the zero fill of such arrays and tiling skips it per tile; the interpreter fills
 * them with NaN instead, so a wrong proof changes the oracle's results.
 */

/** `base + c` with `base` a structural key ('' for literals), or null if not of that form. */
function linear(e: Expr): { base: string; c: number } | null {
  if (e.kind === 'lit' && typeof e.value === 'number') return { base: '', c: e.value };
  if (e.kind === 'binary' && (e.op === '+' || e.op === '-') && e.right.kind === 'lit' && typeof e.right.value === 'number') {
    const inner = linear(e.left)!;
    return { base: inner.base, c: inner.c + (e.op === '+' ? e.right.value : -e.right.value) };
  }
  return { base: JSON.stringify(e), c: 0 };
}

/** a <= b when provable; false when not comparable. */
function le(a: Expr, da: number, b: Expr, db: number): boolean {
  const x = linear(a);
  const y = linear(b);
  return !!x && !!y && x.base === y.base && x.c + da <= y.c + db;
}

function within(inner: Range, off: number, outer: Range): boolean {
  return le(outer.lo, 0, inner.lo, off) && le(inner.hi, off, outer.hi, 0);
}

/** K ranges of writers cover [lo, hi) when sorted and contiguous (symbolically). */
function kCovered(target: Range, writers: Range[]): boolean {
  const same = (a: Expr, b: Expr) => JSON.stringify(a) === JSON.stringify(b);
  const atOrBefore = (a: Expr, b: Expr) => same(a, b) || le(a, 0, b, 0);
  const sorted = [...writers].sort((a, b) => {
    const x = linear(a.lo)!;
    const y = linear(b.lo)!;
    return x.base === y.base ? x.c - y.c : x.base === '' ? -1 : 1;
  });
  let at = target.lo;
  for (const w of sorted) if (atOrBefore(w.lo, at) && !atOrBefore(w.hi, at)) at = w.hi;
  return atOrBefore(target.hi, at);
}

/**
 * True when `name` is written, at every point any statement reads, before that read: all
 * writes are unconditional top-level assignments that read nothing of `name`, the first
 * access is such a write, no read is at a K offset, and every read lies inside every
 * writing nest's IJ range and inside the union of the writers' K ranges.
 */
export function definitelyWritten(name: string, launch: Launch): boolean {
  type Site = { v: VLoop; h: HLoop };
  const writers: Site[] = [];
  const readers: { site: Site; offset: [number, number, number]; variableK: boolean }[] = [];
  let first: 'write' | 'read' | null = null;
  const shiftedWrite = (stmts: Stmt[]): boolean => someStmt(stmts, (s) => s.kind === 'assign' && s.target === name && (!!s.kOffset || !!s.kVar));
  const nestedWrite = (stmts: Stmt[]): boolean =>
    stmts.some((s) => stmtLists(s).some((l) => writes(l).has(name)));
  for (const v of launch.loops) {
    for (const h of v.body) {
      if (nestedWrite(h.body) || shiftedWrite(h.body)) return false;
      for (const s of h.body) {
        const r = reads([s]).filter((x) => x.name === name);
        const isWrite = s.kind === 'assign' && s.target === name;
        // a neighbour read in the writing nest may see a point not written yet
        if (r.some((x) => x.offset[0] !== 0 || x.offset[1] !== 0) && writes(h.body).has(name)) return false;
        if (isWrite && r.length && first === null) return false;
        if (s.kind === 'check' && s.target === name && first === null) return false;
        if (first === null && (isWrite || r.length)) first = isWrite ? 'write' : 'read';
        if (isWrite && !writers.some((w) => w.h === h)) writers.push({ v, h });
        for (const x of r) readers.push({ site: { v, h }, offset: x.offset, variableK: x.variableK });
      }
    }
  }
  if (first !== 'write') return false;
  const wk = writers.map((w) => w.v.k);
  for (const { site, offset, variableK } of readers) {
    if (offset[2] !== 0 || variableK) return false;
    if (!kCovered(site.v.k, wk)) return false;
    for (const w of writers) {
      if (!within(site.h.i, offset[0], w.h.i) || !within(site.h.j, offset[1], w.h.j)) return false;
    }
  }
  return true;
}
