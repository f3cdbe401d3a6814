import { forRange } from '../core/ir/forRange.js';
import type { PStmt, Program } from '../core/ir/types.js';
import { reads, writes } from '../core/ir/uses.js';
import { launches } from '../core/ir/visit.js';
import { bytesPerElement } from '../core/runtime/ndarray.js';

/**
 * The bench's traffic model: the bytes a call must move between memory and the cores at
 * the least, over an interior of `interior` points (I, J, K). Temporaries and transients are
 * not compulsory (they can live per tile); an argument is.
 */

/**
 * Compulsory bytes of running `stmts` once: every argument whose input value can be
 * observed (its first access in execution order is a read) is read once, every argument
 * written is written once.
 */
export function passBytes(program: Program, stmts: readonly PStmt[], interior: number[]): number {
  const first = new Map<string, 'read' | 'write'>();
  const written = new Set<string>();
  for (const l of launches(stmts))
    for (const v of l.loops)
      for (const h of v.body)
        for (const s of h.body) {
          for (const r of reads([s])) if (!first.has(r.name)) first.set(r.name, 'read');
          for (const w of writes([s])) {
            if (!first.has(w)) first.set(w, 'write');
            written.add(w);
          }
        }
  let total = 0;
  for (const a of program.arrays) {
    if (a.role !== 'arg') continue;
    const n = [...a.axes].reduce((acc, ax) => acc * interior['IJK'.indexOf(ax)], 1);
    total += n * bytesPerElement(a.dtype) * (Number(first.get(a.name) === 'read') + Number(written.has(a.name)));
  }
  return total;
}

/** Compulsory bytes of one call: the program's body as one pass (`npm run bench`'s effective bandwidth). */
export function compulsoryBytes(program: Program, interior: number[]): number {
  return passBytes(program, program.body, interior);
}

/**
 * Compulsory bytes of one call when every iteration of a program loop (a substep) is its own
 * pass: unless iterations are fused in time, each must stream the arguments it touches, so a
 * loop of n iterations moves n times its body's pass; statements between loops are one pass
 * each run. The trip counts come from the IR's loop bounds; undefined when a loop's bounds
 * are not known before the call (a while loop, a bound read from an argument).
 */
export function substepBytes(program: Program, interior: number[]): number | undefined {
  return listBytes(program, program.body, interior);
}

function listBytes(program: Program, stmts: readonly PStmt[], interior: number[]): number | undefined {
  let total = 0;
  let run: PStmt[] = [];
  const flush = () => {
    if (run.length) total += passBytes(program, run, interior);
    run = [];
  };
  for (const s of stmts) {
    if (s.kind === 'for') {
      flush();
      const n = forRange(s)?.n;
      const body = listBytes(program, s.body, interior);
      if (n === undefined || body === undefined) return undefined;
      total += n * body;
    } else if (s.kind === 'while' && launches([s]).length) {
      return undefined;
    } else if (s.kind === 'if' && launches([s]).length) {
      // one branch runs: the dearer one bounds what the call must move
      flush();
      const a = listBytes(program, s.then, interior);
      const b = listBytes(program, s.else, interior);
      if (a === undefined || b === undefined) return undefined;
      total += Math.max(a, b);
    } else run.push(s);
  }
  flush();
  return total;
}
