import type { DType, Expr, HLoop, HorizontalRegion, Launch, Program, Range, RegionAxis, Stmt, VLoop } from '../../core/ir/types.js';
import { forEachStmt, launches, mapStmtLists, mapStmts } from '../../core/ir/visit.js';
import { checkTargets, letNames, reads, touches, writes } from '../../core/ir/uses.js';
import { printExpr } from '../../core/ir/print.js';

/**
 * Temporaries recomputed where they are read (codegen.recomputeTemporaries): a PARALLEL
 * nest that writes only transients, read by later nests of its loop at horizontal offsets
 * (ppm's `al[1, 0, 0]`, `bl[-1, 0, 0]`), is copied into each reader once per offset it is
 * read at, shifted to that offset, its transients and lets renamed to the reader's point
 * locals, and dropped. The reader then recomputes a few values in registers where it loaded
 * them from memory stored a row before (ppm at 12x12x79, AVX-512, hand-written: 19 -> 13.5 us
 * a call). A copy evaluates the same expressions on the same inputs, and a region's bounds
 * move by the offset, so results are bitwise the same. Only where nothing the copy reads
 * is written in the loop, its transients are written first at every point, and every read
 * is at K offset zero.
 */

type Offset2 = [number, number];

const key = (o: Offset2) => `${o[0]}_${o[1]}`.replace(/-/g, 'm');

/** Whether `stmts` assign `name` at top level, unconditionally, before anything reads it. */
function writtenFirst(stmts: Stmt[], name: string): boolean {
  for (const s of stmts) {
    const read = reads([s]).some((r) => r.name === name);
    if (s.kind === 'assign' && s.target === name) return !read && !s.kOffset && !s.kVar && !s.data;
    if (read || writes([s]).has(name)) return false;
  }
  return false;
}

function shiftAxis(a: RegionAxis, by: number): RegionAxis {
  // the test at point p + by: p + by in [start, end) <=> p in [start - by, end - by)
  return { start: a.start && { ...a.start, offset: a.start.offset - by }, end: a.end && { ...a.end, offset: a.end.offset - by } };
}

/** The writer's statements as the reader runs them at offset `o`: reads and regions shifted, names renamed. */
function shifted(stmts: readonly Stmt[], o: Offset2, rename: Map<string, string>, temps: Map<string, DType>): Stmt[] {
  const expr = (e: Expr): Expr => {
    if (e.kind === 'field' && temps.has(e.name)) return { kind: 'scalar', name: rename.get(e.name)!, dtype: e.dtype };
    if (e.kind === 'field') return { ...e, offset: [e.offset[0] + o[0], e.offset[1] + o[1], e.offset[2]] };
    if (e.kind === 'scalar' && rename.has(e.name)) return { ...e, name: rename.get(e.name)! };
    return e;
  };
  const go = (list: readonly Stmt[]): Stmt[] =>
    list.map((s): Stmt => {
      const m = mapStmts([s], expr)[0];
      if (m.kind === 'assign' && temps.has(m.target)) return { kind: 'let', name: rename.get(m.target)!, value: m.value, loc: m.loc };
      if (m.kind === 'let') return { ...m, name: rename.get(m.name) ?? m.name };
      if (m.kind === 'region' && s.kind === 'region') return { ...m, regions: m.regions.map((r): HorizontalRegion => ({ i: shiftAxis(r.i, o[0]), j: shiftAxis(r.j, o[1]) })), body: go(s.body) };
      if (m.kind === 'if' && s.kind === 'if') return { ...m, then: go(s.then), else: go(s.else) };
      return m;
    });
  return go(stmts);
}

/** An extent as a symbolic part and a constant (`(q.shape[0] - 6) + 1`: q.shape[0], -5). */
function linear(e: Expr): { sym: string; c: number } {
  if (e.kind === 'lit' && typeof e.value === 'number') return { sym: '', c: e.value };
  if (e.kind === 'unary' && e.op === '-' && e.arg.kind === 'lit' && typeof e.arg.value === 'number') return { sym: '', c: -e.arg.value };
  if (e.kind === 'binary' && (e.op === '+' || e.op === '-')) {
    const [l, r] = [linear(e.left), linear(e.right)];
    if (r.sym === '') return { sym: l.sym, c: e.op === '+' ? l.c + r.c : l.c - r.c };
    if (l.sym === '' && e.op === '+') return { sym: r.sym, c: l.c + r.c };
  }
  return { sym: printExpr(e), c: 0 };
}

/** Whether range `outer` holds `inner` moved by `by` (undefined where the bounds do not compare). */
function covers(outer: Range, inner: Range, by: number): boolean {
  const [olo, ohi, ilo, ihi] = [linear(outer.lo), linear(outer.hi), linear(inner.lo), linear(inner.hi)];
  return olo.sym === ilo.sym && ohi.sym === ihi.sym && olo.c <= ilo.c + by && ohi.c >= ihi.c + by;
}

/** The statements a nest may be copied with: assignments, lets, ifs and regions (no loops, checks, K or data offsets). */
function copyable(stmts: readonly Stmt[]): boolean {
  let ok = true;
  forEachStmt(stmts, (s) => {
    if (s.kind === 'while' || s.kind === 'check' || (s.kind === 'assign' && (s.kOffset || s.kVar || s.data))) ok = false;
  });
  return ok && reads(stmts).every((r) => !r.variableK && !r.computedData);
}

/** One writer nest inlined into the readers of its loop, or undefined where it may not be. */
function inlineOne(v: VLoop, w: number, transients: Set<string>, others: readonly VLoop[], decl: Map<string, DType>): VLoop | undefined {
  const h = v.body[w];
  const temps = [...writes(h.body)];
  if (!temps.length || !temps.every((t) => transients.has(t) && decl.has(t) && writtenFirst(h.body, t))) return undefined;
  if (!copyable(h.body) || checkTargets(h.body).size) return undefined;
  // only this nest writes them, and no other loop of the launch touches them
  if (v.body.some((x, n) => n !== w && temps.some((t) => writes(x.body).has(t)))) return undefined;
  if (others.some((o) => o !== v && o.body.some((x) => temps.some((t) => touches(x.body, t))))) return undefined;
  // what the copy reads stays what the writer read: nothing in the loop writes it
  const written = new Set<string>();
  for (const x of v.body) writes(x.body, written);
  if (reads(h.body).some((r) => !temps.includes(r.name) && written.has(r.name))) return undefined;
  // its own reads of its transients at the point only; readers after it, at K offset zero
  if (reads(h.body).some((r) => temps.includes(r.name) && r.offset.some((x) => x !== 0))) return undefined;
  if (v.body.slice(0, w).some((x) => temps.some((t) => touches(x.body, t)))) return undefined;
  const readers = v.body.map((x, n) => (n > w && temps.some((t) => touches(x.body, t)) ? n : -1)).filter((n) => n >= 0);
  if (!readers.length) return undefined;
  for (const n of readers) if (reads(v.body[n].body).some((r) => temps.includes(r.name) && (r.variableK || r.computedData || r.offset[2] !== 0))) return undefined;
  // every point a copy computes is one the writer computed: no read of a value it left unwritten
  for (const n of readers) {
    const x = v.body[n];
    if (reads(x.body).some((r) => temps.includes(r.name) && (!covers(h.i, x.i, r.offset[0]) || !covers(h.j, x.j, r.offset[1])))) return undefined;
  }
  const lets = letNames(h.body);
  const dtypes = new Map<string, DType>([...temps.map((t): [string, DType] => [t, decl.get(t)!]), ...(h.locals ?? []).map((l): [string, DType] => [l.name, l.dtype])]);
  const body = v.body.map((x, n): HLoop | undefined => {
    if (n === w) return undefined;
    if (!readers.includes(n)) return x;
    const offsets = new Map<string, Offset2>();
    for (const r of reads(x.body)) if (temps.includes(r.name)) offsets.set(key([r.offset[0], r.offset[1]]), [r.offset[0], r.offset[1]]);

    const locals = [...(x.locals ?? [])];
    const prelude: Stmt[] = [];
    const byOffset = new Map<string, Map<string, string>>();
    for (const [k, o] of offsets) {
      const rename = new Map<string, string>();
      for (const name of [...temps, ...lets]) {
        // (unique in the reader: two writers copied at one offset may hold lets of one name)
        let local = `${name}__at_${k}`;
        for (let n = 2; locals.some((l) => l.name === local); n++) local = `${name}__at_${k}_${n}`;
        rename.set(name, local);
        locals.push({ name: local, dtype: dtypes.get(name)! });
      }
      byOffset.set(k, rename);
      prelude.push(...shifted(h.body, o, rename, new Map(temps.map((t) => [t, decl.get(t)!]))));
    }
    const asLocal = (e: Expr): Expr => (e.kind === 'field' && temps.includes(e.name) ? { kind: 'scalar', name: byOffset.get(key([e.offset[0], e.offset[1]]))!.get(e.name)!, dtype: e.dtype } : e);
    return { ...x, body: [...prelude, ...mapStmts(x.body, asLocal)], locals };
  });
  return { ...v, body: body.filter((x): x is HLoop => x !== undefined) };
}

function inlineLaunch(l: Launch, decl: Map<string, DType>, removed: Set<string>): Launch {
  let loops = l.loops;
  const transients = new Set(l.transients);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [vi, v] of loops.entries()) {
      if (v.order !== 'PARALLEL') continue;
      for (let w = 0; w < v.body.length && !changed; w++) {
        const next = inlineOne(v, w, transients, loops, decl);
        if (!next) continue;
        for (const t of writes(v.body[w].body)) {
          transients.delete(t);
          removed.add(t);
        }
        loops = loops.map((x, n) => (n === vi ? next : x));
        changed = true;
      }
      if (changed) break;
    }
  }
  if (transients.size === l.transients.length) return l;
  const origins = Object.fromEntries(Object.entries(l.origins).filter(([a]) => !removed.has(a)));
  return { ...l, loops, transients: l.transients.filter((t) => transients.has(t)), origins };
}

export function recomputeTemporaries(p: Program): Program {
  const removed = new Set<string>();
  const decl = new Map(p.arrays.filter((a) => a.axes === 'IJK' && !a.dims?.length).map((a) => [a.name, a.dtype]));
  const body = mapStmtLists(p.body, (list) => list.map((s) => (s.kind === 'launch' ? inlineLaunch(s, decl, removed) : s)));
  // an array no launch uses any more goes (one another launch still uses keeps its declaration)
  const used = new Set<string>();
  for (const l of launches(body)) {
    for (const t of l.transients) used.add(t);
    for (const v of l.loops)
      for (const h of v.body) {
        for (const r of reads(h.body)) used.add(r.name);
        writes(h.body, used);
      }
  }
  return { ...p, body, arrays: p.arrays.filter((a) => !removed.has(a.name) || used.has(a.name)) };
}
