import { boundRank, intervalMinLevels, intervalText } from '../../core/ir/intervals.js';
import type { ArrayDecl, AxisBound, Expr, HLoop, IterationOrder, LaunchRequirement, PStmt, Program, Stmt, StencilDef, VLoop } from '../../core/ir/types.js';
import { reads, writes, type Access } from '../../core/ir/uses.js';
import { int, intOp } from '../../core/ir/build.js';
import { flatMapStmts, mapExpr, mapStmts } from '../../core/ir/visit.js';
import { readNeeds, sameExtent, unionExtent as union, ZERO_EXTENT as ZERO, type Extent } from './readExtents.js';
import { fieldPassedTwice } from '../../core/diagnostics/programErrors.js';
import { emptyIntervalRequirement, intervalBoundsRequirement } from '../../core/diagnostics/stencilErrors.js';

/**
 * Library expansion of one stencil call: GT4Py's execution model made explicit.
 *
 * A stencil runs computation by computation. Within a PARALLEL interval each top-level
 * statement sweeps its whole 3-D range before the next; within FORWARD/BACKWARD each K
 * level runs every statement over its IJ plane. Statements are grouped into one loop
 * nest (`HLoop`) when that cannot change results. Temporaries read at horizontal offsets
 * are computed on an extended range (extent analysis, last statement first, counting a
 * read inside a horizontal region only where the region can run: readExtents.ts); API
 * fields are only ever written inside the call's domain.
 */

interface Unit {
  comp: number;
  interval: number;
  stmt: Stmt;
  extent: Extent;
}

/** Per-statement compute extents of a stencil, in program order. */
function computeExtents(def: StencilDef): Unit[] {
  const units: Unit[] = [];
  def.computations.forEach((c, ci) => c.intervals.forEach((iv, ii) => iv.body.forEach((stmt) => units.push({ comp: ci, interval: ii, stmt, extent: ZERO }))));
  const temps = new Set(def.fields.filter((f) => f.role === 'temp').map((f) => f.name));
  const pending = new Map<string, Extent>();
  for (let u = units.length - 1; u >= 0; u--) {
    const unit = units[u];
    let ext = ZERO;
    for (const w of writes([unit.stmt])) if (temps.has(w) && pending.has(w)) ext = union(ext, pending.get(w)!);
    unit.extent = ext;
    for (const r of readNeeds([unit.stmt], ext)) pending.set(r.name, union(pending.get(r.name) ?? ZERO, r.need));
  }
  return units;
}

function boundExpr(b: AxisBound, n: Expr): Expr {
  if (b.level === 'start') return int(b.offset);
  if (b.offset === 0) return n;
  return intOp('+', n, int(b.offset));
}

/** `n + c` or `c` as (uses n, c); anything else is not comparable. */
function linearForm(e: Expr, n: Expr): { n: boolean; c: number } | null {
  if (e.kind === 'lit' && typeof e.value === 'number') return { n: false, c: e.value };
  if (JSON.stringify(e) === JSON.stringify(n)) return { n: true, c: 0 };
  if (e.kind === 'binary' && e.op === '+' && e.right.kind === 'lit' && typeof e.right.value === 'number' && JSON.stringify(e.left) === JSON.stringify(n)) return { n: true, c: e.right.value };
  return null;
}

function pick(a: Expr, b: Expr, n: Expr, fn: 'max' | 'min'): Expr {
  const x = linearForm(a, n);
  const y = linearForm(b, n);
  if (x && y && x.n === y.n) return (fn === 'max' ? x.c >= y.c : x.c <= y.c) ? a : b;
  return { kind: 'call', fn, args: [a, b], dtype: 'int64' };
}

/** Lower loop bound: the larger of the nest's own bound and a region's start. */
function boundMax(lo: Expr, start: AxisBound | null, n: Expr): Expr {
  return start ? pick(lo, boundExpr(start, n), n, 'max') : lo;
}

/** Upper loop bound: the smaller of the nest's own bound and a region's end. */
function boundMin(hi: Expr, end: AxisBound | null, n: Expr): Expr {
  return end ? pick(hi, boundExpr(end, n), n, 'min') : hi;
}

function boundKey(b: AxisBound): number {
  // start-relative bounds come before end-relative ones (domains are larger than offsets)
  return b.level === 'start' ? b.offset : 1e9 + b.offset;
}

/**
 * A loop nest being filled with statements, and what decides whether the next one may
 * join it without changing results: a statement may not read, at an offset that matters,
 * what the nest writes, nor write what the nest reads at such an offset. FORWARD/BACKWARD
 * run a whole nest per level, so only other columns (I/J offsets) can see a partial
 * result; PARALLEL runs each statement over all levels first, so K offsets count too.
 * The sets grow with the nest, so checking a statement costs its own size only.
 */
class NestGroup {
  readonly stmts: Stmt[] = [];
  private readonly written = new Set<string>();
  private readonly readAtOffset = new Set<string>();

  constructor(private readonly order: IterationOrder) {}

  private offsetMatters(r: Access): boolean {
    return r.offset[0] !== 0 || r.offset[1] !== 0 || (this.order === 'PARALLEL' && (r.offset[2] !== 0 || r.variableK));
  }

  canJoin(stmtReads: readonly Access[], stmtWrites: ReadonlySet<string>): boolean {
    for (const r of stmtReads) if (this.written.has(r.name) && this.offsetMatters(r)) return false;
    for (const w of stmtWrites) if (this.readAtOffset.has(w)) return false;
    return true;
  }

  add(stmt: Stmt, stmtReads: readonly Access[], stmtWrites: ReadonlySet<string>): void {
    this.stmts.push(stmt);
    for (const w of stmtWrites) this.written.add(w);
    for (const r of stmtReads) if (this.offsetMatters(r)) this.readAtOffset.add(r.name);
  }
}

/** Restricts writes of API fields to the call domain inside an extended statement. */
function guardApiWrites(stmts: Stmt[], api: Set<string>): Stmt[] {
  const all = { start: { level: 'start', offset: 0 }, end: { level: 'end', offset: 0 } } as const;
  return flatMapStmts(stmts, (s): Stmt[] => (s.kind === 'assign' && api.has(s.target) ? [{ kind: 'region', regions: [{ i: all, j: all }], body: [s], loc: s.loc }] : [s]));
}

interface ExpansionResult {
  stmts: PStmt[];
  transients: ArrayDecl[];
  locals: { name: string; dtype: 'int64' | Expr['dtype'] }[];
}

/**
 * Expands `call` into a `launch` in program namespace. `prefix` makes transient and local
 * names unique per call site.
 */
export function expandCall(program: Program, call: Extract<PStmt, { kind: 'call' }>, prefix: string): ExpansionResult {
  const def = program.stencils[call.stencil];
  const units = computeExtents(def);
  const api = new Set(def.fields.filter((f) => f.role === 'api').map((f) => f.name));
  const pre: PStmt[] = [];
  const locals: ExpansionResult['locals'] = [];
  const simple = (e: Expr) => e.kind === 'scalar' || e.kind === 'lit';
  const bindLocal = (name: string, value: Expr): Expr => {
    if (simple(value)) return value;
    locals.push({ name, dtype: value.dtype });
    pre.push({ kind: 'set', name, value, loc: call.loc });
    return { kind: 'scalar', name, dtype: value.dtype };
  };
  const domain = call.domain.map((d, i) => bindLocal(`${prefix}n${'ijk'[i]}`, d)) as [Expr, Expr, Expr];
  const scalarSubst = new Map<string, Expr>();
  for (const s of def.scalars) scalarSubst.set(s.name, bindLocal(`${prefix}${s.name}`, call.scalars[s.name]));

  // transients: one program array per stencil temporary, sized by its extents
  const rename = new Map<string, string>(Object.entries(call.fields));
  const transients: ArrayDecl[] = [];
  const tempExtent = new Map<string, Extent>();
  const tempKPad = new Map<string, number>();
  for (const u of units) {
    for (const w of writes([u.stmt])) if (!api.has(w)) tempExtent.set(w, union(tempExtent.get(w) ?? ZERO, u.extent));
    for (const r of readNeeds([u.stmt], u.extent)) {
      if (api.has(r.name)) continue;
      tempExtent.set(r.name, union(tempExtent.get(r.name) ?? ZERO, r.need));
      tempKPad.set(r.name, Math.max(tempKPad.get(r.name) ?? 0, Math.abs(r.k)));
    }
  }
  const origins: Record<string, Expr[]> = {};
  for (const [param, arr] of Object.entries(call.fields)) {
    const o = call.origins[param];
    if (origins[arr] && JSON.stringify(origins[arr]) !== JSON.stringify(o)) {
      throw fieldPassedTwice(arr, def.name, call.loc);
    }
    origins[arr] = o;
  }
  // unfolded, as written: `n + 0` stays `n`, a negative pad stays `n + -2`
  const add = (a: Expr, v: number): Expr => (v === 0 ? a : intOp('+', a, int(v)));
  for (const f of def.fields) {
    if (f.role !== 'temp') continue;
    const ext = tempExtent.get(f.name) ?? ZERO;
    const kpad = tempKPad.get(f.name) ?? 0;
    const name = `${prefix}${f.name}`;
    rename.set(f.name, name);
    // a typed 2-D temporary (`tmp: Field[IJ, float]`) keeps its axes: one plane that every level shares
    const shape = [add(domain[0], ext.ihi - ext.ilo), add(domain[1], ext.jhi - ext.jlo), add(domain[2], 2 * kpad)];
    const origin = [int(-ext.ilo), int(-ext.jlo), int(kpad)];
    const dims = [...f.axes].map((a) => 'IJK'.indexOf(a));
    transients.push({ name, dtype: f.dtype, axes: f.axes, role: 'transient', shape: dims.map((d) => shape[d]), loc: def.loc });
    origins[name] = dims.map((d) => origin[d]);
  }

  const toProgram = (stmts: Stmt[]): Stmt[] =>
    mapStmts(
      stmts,
      (e) => {
        if (e.kind === 'field') return { ...e, name: rename.get(e.name) ?? e.name };
        if (e.kind === 'scalar' && scalarSubst.has(e.name)) return scalarSubst.get(e.name)!;
        return e;
      },
      (t) => rename.get(t) ?? t,
    );

  const loops: VLoop[] = [];
  def.computations.forEach((c, ci) => {
    const order = c.order;
    const intervalIdx = c.intervals.map((_, i) => i);
    if (order !== 'PARALLEL') {
      intervalIdx.sort((a, b) => boundRank(c.intervals[a].start) - boundRank(c.intervals[b].start));
      if (order === 'BACKWARD') intervalIdx.reverse();
    }
    for (const ii of intervalIdx) {
      const iv = c.intervals[ii];
      const ivUnits = units.filter((u) => u.comp === ci && u.interval === ii);
      const hloops: HLoop[] = [];
      let group = new NestGroup(order);
      let groupExt: Extent | null = null;
      const flush = () => {
        if (!group.stmts.length || !groupExt) return;
        hloops.push({
          i: { lo: int(groupExt.ilo), hi: add(domain[0], groupExt.ihi) },
          j: { lo: int(groupExt.jlo), hi: add(domain[1], groupExt.jhi) },
          body: toProgram(group.stmts),
        });
        group = new NestGroup(order);
        groupExt = null;
      };
      for (const u of ivUnits) {
        const stmt = sameExtent(u.extent, ZERO) ? u.stmt : guardApiWrites([u.stmt], api)[0];
        if (stmt.kind === 'region' && stmt.split) {
          // an edge or corner region marked by region expansion: one loop over its own bounds each
          flush();
          for (const r of stmt.regions) {
            hloops.push({
              i: { lo: boundMax(int(u.extent.ilo), r.i.start, domain[0]), hi: boundMin(add(domain[0], u.extent.ihi), r.i.end, domain[0]) },
              j: { lo: boundMax(int(u.extent.jlo), r.j.start, domain[1]), hi: boundMin(add(domain[1], u.extent.jhi), r.j.end, domain[1]) },
              body: toProgram(stmt.body),
            });
          }
          continue;
        }
        const stmtReads = reads([stmt]);
        const stmtWrites = writes([stmt]);
        if (groupExt && (!sameExtent(groupExt, u.extent) || !group.canJoin(stmtReads, stmtWrites))) flush();
        group.add(stmt, stmtReads, stmtWrites);
        groupExt = u.extent;
      }
      flush();
      if (hloops.length) loops.push({ order, k: { lo: boundExpr(iv.start, domain[2]), hi: boundExpr(iv.end, domain[2]) }, body: hloops, loc: iv.loc });
    }
  });

  // GT4Py refuses a call whose K size leaves an interval empty; so does every backend. The
  // most demanding interval decides (the first one in the source on a tie).
  const requires: LaunchRequirement[] = [];
  let most = 0;
  for (const c of def.computations) {
    for (const iv of c.intervals) {
      const min = intervalMinLevels(iv.start, iv.end)!;
      if (min <= most) continue;
      most = min;
      const { code, message, hint } = emptyIntervalRequirement(intervalText(iv.start, iv.end), def.name, min);
      requires[0] = { cond: { kind: 'binary', op: '>=', left: domain[2], right: int(min), dtype: 'bool' }, code, message, args: [domain[2]], hint, loc: iv.loc };
    }
  }

  // runtime bounds from scalars: the interval's levels must lie in the domain (GT4Py's debug
  // backend would run the levels beyond it, in its halo; masking alone would skip them)
  const toHost = (e: Expr): Expr => mapExpr(e, (x) => (x.kind === 'scalar' && scalarSubst.has(x.name) ? scalarSubst.get(x.name)! : x));
  for (const c of def.computations) {
    for (const iv of c.intervals) {
      if (!iv.runtime) continue;
      const lo = iv.runtime.lo ? toHost(iv.runtime.lo) : boundExpr(iv.start, domain[2]);
      const hi = iv.runtime.hi ? toHost(iv.runtime.hi) : boundExpr(iv.end, domain[2]);
      const cmp = (op: '>=' | '<=', a: Expr, b: Expr): Expr => ({ kind: 'binary', op, left: a, right: b, dtype: 'bool' });
      const inside: Expr = { kind: 'binary', op: 'and', left: cmp('>=', lo, int(0)), right: cmp('<=', hi, domain[2]), dtype: 'bool' };
      const { code, message, hint } = intervalBoundsRequirement(def.name);
      requires.push({ cond: { kind: 'binary', op: 'or', left: cmp('>=', lo, hi), right: inside, dtype: 'bool' }, code, message, args: [lo, hi, domain[2]], hint, loc: iv.loc });
    }
  }

  const launch: PStmt = {
    kind: 'launch',
    stencil: call.stencil,
    domain,
    origins,
    transients: transients.map((t) => t.name),
    requires,
    loops,
    loc: call.loc,
  };
  return { stmts: [...pre, launch], transients, locals };
}
