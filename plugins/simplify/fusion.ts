import type { Expr, HLoop, PStmt, Program, Stmt, VLoop, Launch } from '../../core/ir/types.js';
import { add, int, sameExpr } from '../../core/ir/build.js';
import { mapStmtLists, someStmt } from '../../core/ir/visit.js';
import { reads, writes, type Access } from '../../core/ir/uses.js';

/**
 * Loop fusion (simplify, second run): adjacent launches merge across stencil calls (see
 * `compatible`), adjacent PARALLEL vertical loops over the same K range merge, and
 * adjacent loop nests over the same IJ range merge when no value read at an offset is
 * written in between. Results cannot change: the legality test is the one library
 * expansion uses to group statements of one stencil.
 */

/** Whether statements `b` may run in the same loop nest after `a`, point by point. */
function canFuse(a: Stmt[], b: Stmt[], parallelK: boolean): boolean {
  const matters = (r: Access) => r.offset[0] !== 0 || r.offset[1] !== 0 || (parallelK && (r.offset[2] !== 0 || r.variableK));
  const wa = writes(a);
  const wb = writes(b);
  for (const r of reads(b)) if (wa.has(r.name) && matters(r)) return false;
  for (const r of reads(a)) if (wb.has(r.name) && matters(r)) return false;
  // point locals are per nest: a nest reading another's local cannot be fused blindly
  return true;
}

function sameRange(a: { lo: unknown; hi: unknown }, b: { lo: unknown; hi: unknown }): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function fuseHLoops(v: VLoop): VLoop {
  const out: HLoop[] = [];
  for (const h of v.body) {
    const last = out[out.length - 1];
    if (last && sameRange(last.i, h.i) && sameRange(last.j, h.j) && canFuse(last.body, h.body, v.order === 'PARALLEL')) {
      out[out.length - 1] = { ...last, body: [...last.body, ...h.body], locals: [...(last.locals ?? []), ...(h.locals ?? [])] };
    } else out.push(h);
  }
  return { ...v, body: out };
}

function fuseVLoops(loops: VLoop[]): VLoop[] {
  const out: VLoop[] = [];
  for (const v of loops) {
    const last = out[out.length - 1];
    // a PARALLEL loop runs its nests one after the other over the whole K range, so two
    // adjacent ones over the same range are one loop with both lists of nests
    if (last && last.order === 'PARALLEL' && v.order === 'PARALLEL' && sameRange(last.k, v.k)) {
      out[out.length - 1] = { ...last, body: [...last.body, ...v.body] };
    } else out.push(v);
  }
  return out.map(fuseHLoops);
}

/** Whether a launch has horizontal regions, whose bounds are relative to its domain. */
function hasRegions(l: Launch): boolean {
  return l.loops.some((v) => v.body.some((h) => someStmt(h.body, (s) => s.kind === 'region')));
}

/** `e` as `base + c`, with `base` null for a literal. */
function split(e: Expr): { base: Expr | null; c: number } {
  if (e.kind === 'lit' && typeof e.value === 'number') return { base: null, c: e.value };
  if (e.kind === 'binary' && (e.op === '+' || e.op === '-') && e.right.kind === 'lit' && typeof e.right.value === 'number') {
    const inner = split(e.left);
    return { base: inner.base, c: inner.c + (e.op === '+' ? e.right.value : -e.right.value) };
  }
  return { base: e, c: 0 };
}

/** `b - a` when it is a constant. */
function constDiff(a: Expr, b: Expr): number | null {
  const x = split(a);
  const y = split(b);
  if (x.base === null ? y.base !== null : y.base === null || !sameExpr(x.base, y.base)) return null;
  return y.c - x.c;
}

/**
 * Launches merge when every array they share has its origin in `b` shifted by one same
 * constant [di, dj] from its origin in `a` (none along K): `b`'s nests then run over their
 * ranges shifted by it, with every origin of `b` moved back by it, so each point indexes
 * every array as before (the dycore's stencils called at origin 2 and at origin 3). Their
 * I and J domains may differ (each nest keeps its own range; the merged launch's domain
 * only sets its tile grid), unless a region's bounds depend on the domain. Returns the
 * shift, or null when the launches cannot merge.
 */
function compatible(a: Launch, b: Launch, axes: Map<string, string>): [number, number] | null {
  const sameDomain = a.domain.every((d, n) => sameExpr(d, b.domain[n]));
  const regions = hasRegions(a) || hasRegions(b);
  if (!sameDomain && (!sameExpr(a.domain[2], b.domain[2]) || regions)) return null;
  const shift: Record<string, number | undefined> = {};
  for (const [arr, o] of Object.entries(b.origins)) {
    const other = a.origins[arr];
    if (!other) continue;
    const letters = axes.get(arr) ?? '';
    for (const [pos, e] of o.entries()) {
      const d = constDiff(other[pos], e);
      const ax = letters[pos];
      if (d === null || !ax || (shift[ax] !== undefined && shift[ax] !== d)) return null;
      shift[ax] = d;
    }
  }
  const di = shift.I ?? 0;
  const dj = shift.J ?? 0;
  if ((shift.K ?? 0) !== 0 || ((di !== 0 || dj !== 0) && regions)) return null;
  return [di, dj];
}

/** `b` with its nests shifted by [di, dj] and its origins moved back by it (see compatible). */
function shifted(b: Launch, [di, dj]: [number, number], axes: Map<string, string>): Launch {
  if (di === 0 && dj === 0) return b;
  const by = (r: { lo: Expr; hi: Expr }, d: number) => ({ lo: add(r.lo, int(d)), hi: add(r.hi, int(d)) });
  const back: Record<string, number> = { I: -di, J: -dj, K: 0 };
  const origins = Object.fromEntries(Object.entries(b.origins).map(([arr, o]) => [arr, o.map((e, pos) => add(e, int(back[(axes.get(arr) ?? '')[pos]] ?? 0)))]));
  return { ...b, origins, loops: b.loops.map((v) => ({ ...v, body: v.body.map((h) => ({ ...h, i: by(h.i, di), j: by(h.j, dj) })) })) };
}

function mergeLaunches(a: Launch, b: Launch): Launch {
  return {
    ...a,
    stencil: `${a.stencil}+${b.stencil}`,
    origins: { ...a.origins, ...b.origins },
    transients: [...a.transients, ...b.transients],
    loops: [...a.loops, ...b.loops],
    tile: a.tile && b.tile ? a.tile : undefined,
    ...(a.requires || b.requires ? { requires: [...(a.requires ?? []), ...(b.requires ?? [])] } : {}),
  };
}

export function fusion(p: Program): Program {
  const axes = new Map(p.arrays.map((a) => [a.name, a.axes as string]));
  const body = mapStmtLists(p.body, (list) => {
    const out: PStmt[] = [];
    for (const s of list) {
      const last = out[out.length - 1];
      const shift = s.kind === 'launch' && last?.kind === 'launch' ? compatible(last, s, axes) : null;
      if (shift && s.kind === 'launch' && last?.kind === 'launch') out[out.length - 1] = mergeLaunches(last, shifted(s, shift, axes));
      else out.push(s);
    }
    return out.map((s) => (s.kind === 'launch' ? { ...s, loops: fuseVLoops(s.loops) } : s));
  });
  return { ...p, body };
}
