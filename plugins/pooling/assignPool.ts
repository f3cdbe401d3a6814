import type { ArrayDecl, Expr, Program } from '../../core/ir/types.js';
import { tileLocalNames } from '../../core/ir/uses.js';
import { launches } from '../../core/ir/visit.js';
import { bytesPerElement } from '../../core/runtime/ndarray.js';
import { definitelyWritten } from '../../core/ir/writtenBeforeRead.js';
import { int, intOp } from '../../core/ir/build.js';

/**
 * Pooling: transient memory gets offsets in one arena per handle instead of its own
 * allocation. Transients of one launch are live together and die with it, so every
 * launch places its transients from offset 0 of the transient arena; program temporaries
 * live for the whole call and share the temporary arena. The arenas only grow, so a warm
 * call allocates nothing. An array is zero-filled only where analysis cannot prove that
 * every point is written before it is read.
 */


function bytesOf(a: ArrayDecl): Expr {
  const count = (a.shape ?? []).reduce<Expr>((acc, e) => intOp('*', acc, e.dtype === 'int64' ? e : { kind: 'cast', arg: e, dtype: 'int64' }), int(1));
  return intOp('*', count, int(bytesPerElement(a.dtype)));
}

/** Rounds up to 64 bytes so every pooled array starts on a cache line. */
function align(e: Expr): Expr {
  return intOp('*', intOp('//', intOp('+', e, int(63)), int(64)), int(64));
}

function place(arrays: ArrayDecl[], zeroFill: (a: ArrayDecl) => boolean): Map<string, ArrayDecl['pool']> {
  const out = new Map<string, ArrayDecl['pool']>();
  let offset: Expr = int(0);
  for (const a of arrays) {
    const end = intOp('+', offset, bytesOf(a));
    out.set(a.name, { offset, end, zeroFill: zeroFill(a) });
    offset = align(end);
  }
  return out;
}

export function assignPool(p: Program): Program {
  const slots = new Map<string, ArrayDecl['pool']>();
  // a temporary private to one tiled launch lives in tile buffers (tiling pass)
  const tileLocal = tileLocalNames(p.body);
  const temporaries = p.arrays.filter((a) => a.role === 'temporary' && !tileLocal.has(a.name));
  // program temporaries start zero-filled on every call (temporary(q) semantics)
  for (const [k, v] of place(temporaries, () => true)) slots.set(k, v);
  const decl = new Map(p.arrays.map((a) => [a.name, a]));
  for (const l of launches(p.body)) {
    // tile-local transients live in per-tile buffers (tiling pass), not in the arena
    const ts = l.transients.filter((t) => !tileLocal.has(t)).map((t) => decl.get(t)!);
    // a versioned array's shadow holds only points its tiles committed to it (tiling pass)
    const shadows = new Set(l.tile?.versioned?.map((x) => x.shadow));
    for (const [k, v] of place(ts, (a) => !shadows.has(a.name) && !definitelyWritten(a.name, l))) slots.set(k, v);
  }
  return { ...p, arrays: p.arrays.map((a) => (slots.has(a.name) ? { ...a, pool: slots.get(a.name) } : a)) };
}
