import type { HLoop, PStmt, Program, Stmt, VLoop, Launch } from '../../core/ir/types.js';
import { sameExpr } from '../../core/ir/build.js';
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

/**
 * Launches merge when every array they share has the same origin, so their nests index it
 * alike. Their I and J domains may differ (each nest keeps its own range; the merged
 * launch's domain only sets its tile grid), unless a region's bounds depend on the domain.
 */
function compatible(a: Launch, b: Launch): boolean {
  const sameDomain = a.domain.every((d, n) => sameExpr(d, b.domain[n]));
  if (!sameDomain && (!sameExpr(a.domain[2], b.domain[2]) || hasRegions(a) || hasRegions(b))) return false;
  for (const [arr, o] of Object.entries(b.origins)) {
    const other = a.origins[arr];
    if (other && !other.every((e, n) => sameExpr(e, o[n]))) return false;
  }
  return true;
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
  const body = mapStmtLists(p.body, (list) => {
    const out: PStmt[] = [];
    for (const s of list) {
      const last = out[out.length - 1];
      if (s.kind === 'launch' && last?.kind === 'launch' && compatible(last, s)) out[out.length - 1] = mergeLaunches(last, s);
      else out.push(s);
    }
    return out.map((s) => (s.kind === 'launch' ? { ...s, loops: fuseVLoops(s.loops) } : s));
  });
  return { ...p, body };
}
