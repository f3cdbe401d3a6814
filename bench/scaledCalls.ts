import type { Program } from '../core/ir/types.js';
import { writes } from '../core/ir/uses.js';
import { forEachExpr, launches } from '../core/ir/visit.js';
import { makeTypedArray, type NDArray } from '../core/runtime/ndarray.js';
import type { EntryCall } from '../test/deviceRuns.js';

/**
 * What bench/gpuBench.ts times: an entry's call grown to a benchmark shape, and the
 * argument traffic its effective bandwidth counts.
 */

/** Argument arrays a program reads and writes anywhere (each counted once per call). */
export function traffic(program: Program): { read: Set<string>; written: Set<string> } {
  const read = new Set<string>();
  const written = new Set<string>();
  for (const l of launches(program.body)) {
    for (const v of l.loops) {
      for (const h of v.body) {
        writes(h.body, written);
        forEachExpr(h.body, (e) => void (e.kind === 'field' && read.add(e.name)));
      }
    }
  }
  const args = new Set(program.arrays.filter((a) => a.role === 'arg').map((a) => a.name));
  return { read: new Set([...read].filter((a) => args.has(a))), written: new Set([...written].filter((a) => args.has(a))) };
}

/**
 * The call with every field tiled to `target` along its spatial axes (keeping each field's
 * offset from the largest), and the domain grown alike. Data dimensions (the extents after
 * a field's axes, a GlobalTable's whole shape) keep their size: they are part of the
 * field's type, not of the domain.
 */
export function scaledCall(c: EntryCall, target: [number, number, number]): EntryCall {
  const base = [1, 1, 1];
  for (const p of c.iface.params) {
    if (p.kind !== 'field') continue;
    [...(p.axes ?? 'IJK')].forEach((a, pos) => (base['IJK'.indexOf(a)] = Math.max(base['IJK'.indexOf(a)], c.inputs[p.name].shape[pos])));
  }
  const inputs: Record<string, NDArray> = {};
  for (const p of c.iface.params) {
    if (p.kind !== 'field') continue;
    const src = c.inputs[p.name];
    const letters = [...(p.axes ?? 'IJK')].map((a) => 'IJK'.indexOf(a));
    const shape = src.shape.map((d, pos) => (pos < letters.length ? Math.max(1, target[letters[pos]] + d - base[letters[pos]]) : d));
    inputs[p.name] = { dtype: src.dtype, shape, data: tiled(src, shape) };
  }
  const domain = c.call.domain?.map((d, a) => Math.max(1, d + target[a] - base[a]));
  return { ...c, inputs, call: { ...c.call, domain } };
}

/** `src` (C order) repeated periodically to fill `shape` (same rank, C order), a row at a time. */
function tiled(src: NDArray, shape: readonly number[]): NDArray['data'] {
  const count = shape.reduce((a, b) => a * b, 1);
  const data = makeTypedArray(src.dtype, count);
  const rank = shape.length;
  if (rank === 0 || count === 0) {
    if (count) (data as unknown as { set(a: ArrayLike<unknown>): void }).set(src.data as never);
    return data;
  }
  const d = data as unknown as { set(a: ArrayLike<unknown>, at: number): void };
  const s = src.data as unknown as { subarray(a: number, b: number): ArrayLike<unknown> };
  const row = shape[rank - 1];
  const srcRow = src.shape[rank - 1];
  const idx = new Array<number>(rank - 1).fill(0);
  for (let o = 0; o < count; o += row) {
    let from = 0;
    for (let a = 0; a < rank - 1; a++) from = from * src.shape[a] + (idx[a] % src.shape[a]);
    from *= srcRow;
    for (let x = 0; x < row; x += srcRow) d.set(s.subarray(from, from + Math.min(srcRow, row - x)), o + x);
    for (let a = rank - 2; a >= 0 && ++idx[a] === shape[a]; a--) idx[a] = 0;
  }
  return data;
}
