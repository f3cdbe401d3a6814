import type { DebugOptions } from '../../core/config/types.js';
import type { ArrayDecl, DebugCheck, Program, Stmt } from '../../core/ir/types.js';
import { flatMapStmts, mapStmtLists } from '../../core/ir/visit.js';

/**
 * Debug insertion: after every write, a NaN check (float fields), a negative-value check
 * for tracer fields (by name) and for `delp*` fields. Reports name the program, the
 * stencil, the user's source line and i, j, k, on the CPU as on any target.
 */

/** The name a user wrote: transients are `<stencil>_<n>_<name>`. */
function userName(a: ArrayDecl): string {
  return a.role === 'transient' ? a.name.replace(/^.*?_\d+_/, '') : a.name;
}

export function insertChecks(p: Program, opts: DebugOptions): Program {
  const decl = new Map(p.arrays.map((a) => [a.name, a]));
  const checksFor = (target: string): Omit<DebugCheck, 'program' | 'stencil'>[] => {
    const a = decl.get(target);
    if (!a) return [];
    const out: Omit<DebugCheck, 'program' | 'stencil'>[] = [];
    const isFloat = a.dtype === 'float64' || a.dtype === 'float32';
    if (opts.nan && isFloat) out.push({ test: 'nan', threshold: 0, action: opts.action });
    const name = userName(a);
    if (isFloat && opts.tracers.includes(name)) out.push({ test: 'negative', threshold: opts.threshold, action: opts.action });
    else if (isFloat && opts.delp && name.startsWith('delp')) out.push({ test: 'negative', threshold: 0, action: opts.action });
    return out;
  };
  const instrument = (stmts: Stmt[], stencil: string): Stmt[] =>
    flatMapStmts(stmts, (s): Stmt[] =>
      // a write at a variable K offset is not checked: its level is known only inside the write
      // (docs/language.md says so)
      s.kind === 'assign' && !s.kVar
        ? [s, ...checksFor(s.target).map((c): Stmt => ({ kind: 'check', target: s.target, check: { ...c, program: p.name, stencil }, loc: s.loc, ...(s.kOffset ? { kOffset: s.kOffset } : {}), ...(s.data ? { data: s.data } : {}) }))]
        : [s],
    );
  const body = mapStmtLists(p.body, (list) =>
    list.map((s) => (s.kind === 'launch' ? { ...s, loops: s.loops.map((v) => ({ ...v, body: v.body.map((h) => ({ ...h, body: instrument(h.body, s.stencil) })) })) } : s)),
  );
  return { ...p, body };
}
