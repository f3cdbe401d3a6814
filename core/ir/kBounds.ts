import type { Expr, Launch } from './types.js';

/**
 * Comparing K bounds symbolically: a bound is `base + c` (base a host expression, c a
 * literal); two bounds compare when their bases are the same, or when one is a literal and
 * the launch's requirements (`require (q.shape[2] >= 3)`) give the other's base a floor.
 */

/** `base + c` with `base` a structural key ('' for literals), or null if not of that form. */
export function linear(e: Expr): { base: string; c: number } | null {
  if (e.kind === 'lit' && typeof e.value === 'number') return { base: '', c: e.value };
  if (e.kind === 'binary' && (e.op === '+' || e.op === '-') && e.right.kind === 'lit' && typeof e.right.value === 'number') {
    const inner = linear(e.left)!;
    return { base: inner.base, c: inner.c + (e.op === '+' ? e.right.value : -e.right.value) };
  }
  return { base: JSON.stringify(e), c: 0 };
}

/** Smallest values of host expressions (structural keys), from the launch's requirements. */
export type Floors = Map<string, number>;

/** a <= b when provable (a literal against `base + c` by the base's floor); false when not comparable. */
export function le(a: Expr, da: number, b: Expr, db: number, floors: Floors = new Map()): boolean {
  const x = linear(a);
  const y = linear(b);
  if (!x || !y) return false;
  if (x.base === y.base) return x.c + da <= y.c + db;
  const floor = floors.get(y.base);
  return x.base === '' && floor !== undefined && x.c + da <= floor + y.c + db;
}

/** What `require (e >= c)` (or `e > c`) guarantees while the launch runs: e's floor. */
export function requiredFloors(launch: Launch): Floors {
  const floors: Floors = new Map();
  for (const r of launch.requires ?? []) {
    const c = r.cond;
    if (c.kind !== 'binary' || (c.op !== '>=' && c.op !== '>') || c.right.kind !== 'lit' || typeof c.right.value !== 'number') continue;
    const at = linear(c.left)!;
    const floor = c.right.value + (c.op === '>' ? 1 : 0) - at.c;
    floors.set(at.base, Math.max(floor, floors.get(at.base) ?? -Infinity));
  }
  return floors;
}
