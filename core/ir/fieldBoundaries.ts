import { launchAccessBounds } from './accessBounds.js';
import { evaluate } from './evaluate.js';
import type { Expr, Launch, PStmt, Program } from './types.js';

/**
 * GT4Py's upper boundary of each field of a stencil entry: how far past the end of the
 * domain the stencil touches the field, per axis of the field (never below 0). A call
 * without `domain=` runs on the largest domain every field holds from its origin,
 * `shape - origin - upper` (GT4Py's `_get_max_domain`), so a read at `[1, 0, 0]` or a write
 * at `[0, 0, 1]` shrinks the default domain instead of running past the array.
 *
 * Computed from the expanded program's access bounds (core/ir/accessBounds.ts), which hold
 * every read and write with the extents propagated through temporaries and the intervals
 * applied. A bound grows with the domain (an interval that ends at the domain's end) or
 * does not (one anchored at the start, which GT4Py does not count either); evaluating it
 * at two domain sizes tells which, and gives the boundary of the growing ones.
 */
export function fieldUpperBoundaries(program: Program, domainParams: readonly string[], originParams: Record<string, readonly string[]>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [name, params] of Object.entries(originParams)) out[name] = params.map(() => 0);
  const origin = new Set(Object.values(originParams).flat());
  const at = (size: number) => (e: Expr): number | undefined =>
    evaluate(e, { scalar: (n) => (domainParams.includes(n) ? size : origin.has(n) ? 0 : undefined) });
  const small = at(1000);
  const large = at(3000);
  for (const launch of launches(program.body)) {
    for (const b of launchAccessBounds(launch, program.arrays)) {
      const upper = out[b.array];
      if (!upper) continue;
      const h1 = small(b.hi);
      const h2 = large(b.hi);
      // only bounds that move with the domain (hi = domain - 1 + boundary) count
      if (h1 === undefined || h2 === undefined || h2 - h1 !== 2000) continue;
      upper[b.axis] = Math.max(upper[b.axis], h1 - 999);
    }
  }
  return out;
}

/**
 * The fields of a stencil entry it reads or writes anywhere. A field the stencil never
 * touches once compile-time branches are folded (`if __INLINED(FLAG)`) may be left out of a
 * call, as GT4Py lets a caller leave out such a `=None` field.
 */
export function touchedFields(program: Program): Set<string> {
  const touched = new Set<string>();
  for (const launch of launches(program.body)) for (const b of launchAccessBounds(launch, program.arrays)) touched.add(b.array);
  return touched;
}

function launches(body: readonly PStmt[]): Launch[] {
  const found: Launch[] = [];
  for (const s of body) {
    if (s.kind === 'launch') found.push(s);
    else if (s.kind === 'for' || s.kind === 'while') found.push(...launches(s.body));
    else if (s.kind === 'if') found.push(...launches(s.then), ...launches(s.else));
  }
  return found;
}
