import type { ArrayDecl, Expr, Program, Launch } from '../../core/ir/types.js';
import { mapStmtLists } from '../../core/ir/visit.js';
import { reads, touches } from '../../core/ir/uses.js';
import { definitelyWritten } from '../../core/ir/writtenBeforeRead.js';

/**
 * Temporaries shrunk to planes (simplify, second run, after tiling): a transient that only
 * FORWARD/BACKWARD loops touch, always at its own level, and that each of them writes at a
 * level before reading it there, is needed one level at a time. It becomes an IJ array that
 * each level overwrites, so it takes one level of memory instead of the whole column.
 * Transients a tiled launch keeps per tile are left alone (the tile buffers already hold
 * them in cache).
 */
/** Each loop touching `name` is level by level and writes it, at each level, before reading it there. */
function perLevel(l: Launch, name: string): boolean {
  const loops = l.loops.filter((v) => v.body.some((h) => touches(h.body, name)));
  return loops.every(
    (v) => v.order !== 'PARALLEL' && v.body.every((h) => reads(h.body).every((r) => r.name !== name || (r.offset[2] === 0 && !r.variableK))) && definitelyWritten(name, { ...l, loops: [v] }),
  );
}

export function planes(p: Program): Program {
  const shrunk = new Map<string, ArrayDecl>();
  const decl = new Map(p.arrays.map((a) => [a.name, a]));
  const shrink = (l: Launch): Launch => {
    // a versioned array's shadow is addressed like the array (tiling pass)
    const perTile = new Set([...(l.tile?.local.map((x) => x.name) ?? []), ...(l.tile?.versioned?.map((x) => x.shadow) ?? [])]);
    const origins: Record<string, Expr[]> = { ...l.origins };
    for (const t of l.transients) {
      const a = decl.get(t)!;
      if (a.axes !== 'IJK' || !a.shape || perTile.has(t) || !perLevel(l, t)) continue;
      shrunk.set(t, { ...a, axes: 'IJ', shape: a.shape.slice(0, 2) });
      origins[t] = origins[t].slice(0, 2);
    }
    return { ...l, origins };
  };
  const body = mapStmtLists(p.body, (list) => list.map((s) => (s.kind === 'launch' ? shrink(s) : s)));
  return { ...p, body, arrays: p.arrays.map((a) => shrunk.get(a.name) ?? a) };
}
