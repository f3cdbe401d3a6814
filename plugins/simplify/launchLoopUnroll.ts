import type { ArrayDecl, Expr, Launch, PStmt, Program } from '../../core/ir/types.js';
import { int, sameExpr } from '../../core/ir/build.js';
import { forRange } from '../../core/ir/forRange.js';
import { mapExpr, mapProgramExprs, mapStmtLists, mapStmts, forEachProgramExpr } from '../../core/ir/visit.js';

/**
 * Unrolls a `for` loop of a compile-time trip count whose body is only launches and
 * iteration-invariant `set`s (del-n damping's `for it in range(n_pass)`), so fusion can merge
 * the launches of its iterations into one: each tile then reads and writes the in-place
 * fields once for all iterations instead of once per iteration, over-computing the wider
 * halo this needs (a schedule choice: codegen option `unrollLoops`, tried by `orch tune`).
 *
 * Results cannot change: the iterations run in the same order, the loop variable is read
 * nowhere in the body, a repeated `set` of a value no iteration changes is dropped, and
 * each iteration after the first gets its own copies of the launches' transients (they are
 * zero-filled per launch; one fused launch must not let an iteration see another's).
 */

/** At most this many iterations are unrolled: the fused launch's halo grows with each. */
export const MAX_UNROLL = 4;

/** Scalars an expression reads. */
function scalarsOf(e: Expr): Set<string> {
  const out = new Set<string>();
  mapExpr(e, (x) => {
    if (x.kind === 'scalar') out.add(x.name);
    return x;
  });
  return out;
}

/** The body can be repeated as is: launches and `set`s whose values no iteration changes, the loop variable unread. */
function unrollable(s: Extract<PStmt, { kind: 'for' }>): boolean {
  if (!s.body.some((b) => b.kind === 'launch')) return false;
  if (!s.body.every((b) => b.kind === 'launch' || b.kind === 'set')) return false;
  const assigned = new Set(s.body.flatMap((b) => (b.kind === 'set' ? [b.name] : [])));
  let readsVar = false;
  forEachProgramExpr(s.body, (e) => {
    if (e.kind === 'scalar' && e.name === s.var) readsVar = true;
  });
  if (readsVar || assigned.has(s.var)) return false;
  // a set's value may not depend on what the body assigns (it would change per iteration)
  for (const b of s.body) if (b.kind === 'set' && [...scalarsOf(b.value)].some((n) => assigned.has(n))) return false;
  // one value per assigned name, so repeating it changes nothing
  const values = new Map<string, Expr>();
  for (const b of s.body) {
    if (b.kind !== 'set') continue;
    const prev = values.get(b.name);
    if (prev && !sameExpr(prev, b.value)) return false;
    values.set(b.name, b.value);
  }
  return true;
}

function unique(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** `l` with its transients renamed by `rename` (fields, shapes, targets, origins). */
function renameTransients(l: Launch, rename: Map<string, string>): Launch {
  const to = (n: string) => rename.get(n) ?? n;
  const fn = (e: Expr): Expr => ((e.kind === 'field' || e.kind === 'shape') && rename.has(e.name) ? { ...e, name: to(e.name) } : e);
  return {
    ...l,
    transients: l.transients.map(to),
    origins: Object.fromEntries(Object.entries(l.origins).map(([k, v]) => [to(k), v])),
    loops: l.loops.map((v) => ({ ...v, body: v.body.map((h) => ({ ...h, body: mapStmts(h.body, fn, to) })) })),
  };
}

export function launchLoopUnroll(p: Program): Program {
  const taken = new Set([...p.arrays.map((a) => a.name), ...p.scalars.map((s) => s.name)]);
  const decls: ArrayDecl[] = [];
  const byName = new Map(p.arrays.map((a) => [a.name, a]));
  const body = mapStmtLists(p.body, (list) =>
    list.flatMap((s): PStmt[] => {
      if (s.kind !== 'for') return [s];
      const range = forRange(s);
      if (!range) return [s];
      const { start, step, n } = range;
      if (n < 2 || n > MAX_UNROLL || !unrollable(s)) return [s];
      const out: PStmt[] = [];
      const setDone = new Set<string>();
      for (let u = 0; u < n; u++) {
        for (const b of s.body) {
          if (b.kind === 'set') {
            // the same value again: nothing between changed what it reads (see unrollable)
            if (!setDone.has(b.name)) out.push(b);
            setDone.add(b.name);
            continue;
          }
          if (b.kind !== 'launch' || u === 0) {
            out.push(b);
            continue;
          }
          const rename = new Map<string, string>();
          for (const t of b.transients) {
            const name = unique(`${t}__it${u}`, taken);
            rename.set(t, name);
            const d = byName.get(t);
            if (d) decls.push({ ...d, name });
          }
          out.push(renameTransients(b, rename));
        }
      }
      // the loop variable keeps its last value, as Python leaves it (dead code drops it if unread)
      out.push({ kind: 'set', name: s.var, value: int(start + (n - 1) * step), loc: s.loc });
      return out;
    }),
  );
  if (body === p.body) return p;
  // transient shapes may name the renamed arrays' own shapes: keep them as declared
  return { ...p, arrays: [...p.arrays, ...decls], body: mapProgramExprs(body, (e) => e) };
}
