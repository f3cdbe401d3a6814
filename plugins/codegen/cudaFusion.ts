import { hasWhileLoop } from '../../core/ir/whileBound.js';
import { checkTargets, reads, writes } from '../../core/ir/uses.js';
import { someStmt } from '../../core/ir/visit.js';
import type { Expr, HLoop, Range, VLoop } from '../../core/ir/types.js';

/** One HLoop of a PARALLEL VLoop, as a piece of a kernel that may run several. */
export interface FusedLoop {
  v: VLoop;
  h: HLoop;
}

/**
 * Whether `next` may join the PARALLEL loops `group` (consecutive in a launch) in one CUDA
 * kernel, where each thread runs, at each of its points, every loop whose ranges hold the
 * point, in IR order. Separate kernels finish one loop everywhere before the next starts;
 * one kernel only keeps the order within a point. That is the same only when no array that
 * one loop writes and another reads or writes is accessed anywhere but at the point itself:
 * every read of it at offset (0, 0, 0), no write at a K offset (constant or variable), no
 * variable-K or computed data index. Arrays written must have I, J and K (a thread per
 * point; an IJ field written over K keeps its own kernel with K in the thread), and nothing
 * that records errors (debug checks, variable-K reads, bounded while loops) joins, so its
 * messages keep their order.
 *
 * What it saves: a launch per loop, and the re-read of what the earlier loop wrote (the
 * thread still has it), e.g. fixtures/diffusion's vertical_smooth intervals and blend.
 */
export function fusable(group: readonly FusedLoop[], next: FusedLoop, axesOf: (array: string) => string): boolean {
  const all = [...group, next];
  if (all.some((l) => l.v.order !== 'PARALLEL')) return false;
  // threads cover the hull of the loops' I and J ranges: keep it near each loop's own
  if (!all.every((l) => alike(l.h.i, group[0].h.i) && alike(l.h.j, group[0].h.j))) return false;
  const bodies = all.map((l) => l.h.body);
  for (const body of bodies) {
    if (checkTargets(body).size || hasWhileLoop(body)) return false;
    if (reads(body).some((r) => r.variableK || r.computedData)) return false;
    if (someStmt(body, (s) => s.kind === 'assign' && (!!s.kOffset || !!s.kVar))) return false;
    for (const name of writes(body)) if (![...'IJK'].every((a) => axesOf(name).includes(a))) return false;
  }
  const before = group.flatMap((l) => l.h.body);
  const wBefore = writes(before);
  const wNext = writes(next.h.body);
  const rBefore = new Set(reads(before).map((r) => r.name));
  const rNext = new Set(reads(next.h.body).map((r) => r.name));
  const shared = new Set([...wBefore].filter((a) => rNext.has(a) || wNext.has(a)));
  for (const a of wNext) if (rBefore.has(a)) shared.add(a);
  const atPoint = (r: { offset: readonly number[] }) => r.offset.every((o) => o === 0);
  return bodies.every((body) => reads(body).every((r) => !shared.has(r.name) || atPoint(r)));
}

/** `e` as a base expression (structural key; '' for a literal) plus a constant. */
function linear(e: Expr): { base: string; c: number } {
  if (e.kind === 'lit' && typeof e.value === 'number') return { base: '', c: e.value };
  if (e.kind === 'binary' && (e.op === '+' || e.op === '-') && e.right.kind === 'lit' && typeof e.right.value === 'number') {
    const inner = linear(e.left);
    return { base: inner.base, c: inner.c + (e.op === '+' ? e.right.value : -e.right.value) };
  }
  return { base: JSON.stringify(e), c: 0 };
}

/** Ranges whose ends differ by a few points at most (e.g. [0, n) and [1, n - 1), not [0, 1) and [n - 1, n)). */
function alike(a: Range, b: Range): boolean {
  const near = (x: Expr, y: Expr) => {
    const [p, q] = [linear(x), linear(y)];
    return p.base === q.base && Math.abs(p.c - q.c) <= 8;
  };
  return near(a.lo, b.lo) && near(a.hi, b.hi);
}
