import type { Delay } from '../../core/ir/nestFusion.js';
import type { Launch, VLoop } from '../../core/ir/types.js';
import { reads, writes } from '../../core/ir/uses.js';
import { writtenOrUntouched } from '../../core/ir/writtenBeforeRead.js';
import type { Codegen } from './Codegen.js';
import { STORAGE } from './cText.js';
import type { RowHooks } from './streamedVersions.js';

/**
 * A tile-local array of fused nests that starts zero-filled (the temporary del-n's passes read
 * a point beyond the domain's edge of) may keep only a few rows too (codegen.rollVersions),
 * where its zeros can be laid again as a row enters its slot: the first nest writing it does
 * so before any nest reads it (writtenOrUntouched) and nothing reads it at a K offset, so a
 * row inside that nest's range needs zeros only at the columns outside it, and a row outside
 * it zeros throughout. Rolled, del-n's tmp in a 64x128x16 tile is 8 rows, not 70x134x16
 * (1.2 MB, past the 1 MB L2). Each point reads what it read unrolled: results are bitwise the same.
 */
export function rollsZeroed(cg: Codegen, s: Launch, v: VLoop, name: string): boolean {
  if (!cg.opts.rollVersions || s.loops.length !== 1 || !writtenOrUntouched(name, s)) return false;
  return v.body.some((h) => writes(h.body).has(name)) && v.body.every((h) => reads(h.body).every((r) => r.name !== name || r.offset[2] === 0));
}

/** The zeros of the rolled zero-filled arrays of fused loop `v`, laid row by row as rows enter their slots; undefined if there are none. */
export function zeroedRows(cg: Codegen, v: VLoop, delays: Delay[] | undefined, zeroed: string[], rolled: ReadonlyMap<string, number>, box: (name: string) => string): RowHooks | undefined {
  const arrays = zeroed.filter((name) => rolled.has(name));
  if (!delays || !arrays.length) return undefined;
  const rows = arrays.map((name) => {
    // the first writer (its nest index) and how far ahead of the loop's row the array's rows are first touched
    const writer = v.body.findIndex((h) => writes(h.body).has(name));
    let ahead = -Infinity;
    v.body.forEach((h, n) => {
      const at = reads(h.body)
        .filter((r) => r.name === name)
        .map((r) => r.offset[0] - delays[n][0]);
      if (writes(h.body).has(name)) at.push(-delays[n][0]);
      if (at.length) ahead = Math.max(ahead, ...at);
    });
    return { name, writer, ahead, next: cg.ids.local(`zero row ${name}`), mask: rolled.get(name)! - 1 };
  });
  const w = cg.w;
  return {
    before: () => {
      for (const x of rows) w.line(`int64_t ${x.next} = ${box(x.name)}_i0;`);
    },
    rowStart: () => {
      for (const x of rows) {
        const b = box(x.name);
        const p = cg.ids.ptr(x.name);
        const type = STORAGE[cg.array(x.name).dtype];
        const [s0, s1, s2] = [0, 1, 2].map((pos) => cg.ids.stride(x.name, pos));
        // (the writer's range in this tile: the loop's own bounds, fusedNests.ts)
        const n = x.writer;
        w.open(`for (; ${x.next} <= std::min<int64_t>(r + ${x.ahead}, ${b}_i1); ++${x.next}) {`);
        w.line(`${type}* const slot = ${p} + (${x.next} & ${x.mask}) * ${s0};`);
        w.open(`if (${x.next} < ilo${n} || ${x.next} >= ihi${n}) {`);
        // (a slot is one row's stride long, K padding included: codegen.alignTileColumns)
        w.line(`std::memset(slot + ${b}_j0 * ${s1} + ${b}_k0 * ${s2}, 0, static_cast<size_t>(${s0}) * sizeof(${type}));`);
        w.reopen(`} else if (${b}_j0 < jlo${n} || ${b}_j1 >= jhi${n}) {`);
        w.open(`for (int64_t j = ${b}_j0; j <= ${b}_j1; ++j) {`);
        w.line(`if (j >= jlo${n} && j < jhi${n}) j = jhi${n};`);
        w.line(`if (j > ${b}_j1) break;`);
        w.line(`for (int64_t k = ${b}_k0; k <= ${b}_k1; ++k) slot[j * ${s1} + k * ${s2}] = 0;`);
        w.close();
        w.close();
        w.close();
      }
    },
    rowEnd: () => undefined,
    after: () => undefined,
  };
}

/** Both hooks in turn (either may be absent). */
export function bothRowHooks(a: RowHooks | undefined, b: RowHooks | undefined): RowHooks | undefined {
  if (!a || !b) return a ?? b;
  return {
    before: () => (a.before(), b.before()),
    rowStart: () => (a.rowStart(), b.rowStart()),
    rowEnd: () => (a.rowEnd(), b.rowEnd()),
    after: () => (a.after(), b.after()),
  };
}
