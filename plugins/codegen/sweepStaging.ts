import type { Launch, Tiling } from '../../core/ir/types.js';
import { accessBoxes, type TileBox } from '../../core/ir/tileBoxes.js';
import { reads, variableKNames, writes } from '../../core/ir/uses.js';
import { definitelyWritten } from '../../core/ir/writtenBeforeRead.js';
import type { Codegen } from './Codegen.js';
import { STORAGE } from './cText.js';

/**
 * The arrays a tile of a FORWARD/BACKWARD launch stages (native/orch_stage.h): fields are
 * K-contiguous, but such a tile runs every nest level by level across its columns, so each
 * read would stride NZ along J, one cache line per column in flight (a 4x32 tile's 128
 * columns per field overflow L1's ways) and loads gathered element by element. A staged
 * array is copied once per tile into a [K][I][J] buffer in the tile's scratch arena, read
 * along K, and the nests address the buffer through redeclared pointer and strides, as
 * tile-local arrays; an array the launch writes is copied back when the tile ends (and is
 * not copied in when the launch writes every point it reads first, definitelyWritten).
 *
 * Staged: 3-D arrays (no data dimensions) that are not tile-local or versioned, never
 * accessed at a variable K offset, and, if the launch writes them, only read in their own
 * column and touched by nests that are not grown: then a tile's box of them holds only
 * its own columns, which no other tile touches, and copying the whole box back (values it
 * did not write included, copied in first) is exact.
 */
export class SweepStaging {
  /** `written`: the nests writing it (copied back over their ranges); `fill`: its input values are read, so the box is copied in. */
  readonly staged: { name: string; written: { vi: number; n: number }[]; fill: boolean }[] = [];
  private readonly boxes: Map<string, TileBox[]>;
  /** Fields whose tiles stream some levels back during their last sweep (orch::stage_stream, sweepBlocks.ts): the copy back skips those. */
  sweptBack = new Set<string>();

  constructor(
    private readonly cg: Codegen,
    s: Launch,
    tile: Tiling,
    /** copy written fields back with streaming stores (orch::stage_columns_back; sweepBlocks.ts) */
    private readonly stream = false,
  ) {
    const excluded = new Set([...tile.local.map((l) => l.name), ...(tile.versioned ?? []).map((x) => x.name)]);
    const written = new Map<string, { vi: number; n: number }[]>();
    const sideways = new Set<string>();
    const grown = new Set<string>();
    const touched = new Set<string>();
    for (const [vi, v] of s.loops.entries())
      for (const [hn, h] of v.body.entries()) {
        for (const n of variableKNames(h.body)) excluded.add(n);
        const isGrown = (h.grow ?? [0, 0, 0, 0]).some((g) => g !== 0);
        for (const r of reads(h.body)) {
          touched.add(r.name);
          if (isGrown) grown.add(r.name);
          if (r.computedData) excluded.add(r.name);
          if (r.offset[0] !== 0 || r.offset[1] !== 0) sideways.add(r.name);
        }
        for (const n of writes(h.body)) {
          touched.add(n);
          written.set(n, [...(written.get(n) ?? []), { vi, n: hn }]);
          if (isGrown) grown.add(n);
        }
      }
    for (const name of [...touched].sort()) {
      const a = cg.arrays.get(name);
      if (!a || a.axes !== 'IJK' || a.dims?.length || excluded.has(name)) continue;
      if (written.has(name) && (sideways.has(name) || grown.has(name))) continue;
      // a box the launch writes before reading any of it is not copied in, and only the points
      // its nests write are copied back (definitelyWritten: every read lies in every writer's range)
      this.staged.push({ name, written: written.get(name) ?? [], fill: !written.has(name) || !definitelyWritten(name, s) });
    }
    this.boxes = accessBoxes(s, new Set(this.staged.map((x) => x.name)));
  }

  /** The prefix of the staged copy's locals (`<prefix>_g` the field's pointer, `_i0`.. its box, `_s0`.. its strides). */
  prefix(name: string): string {
    return this.cg.ids.local(`stage_${name}`);
  }

  /** At the top of a tile's body, before any pointer is redeclared: each staged array's box and its bytes in the arena. */
  reserve(): void {
    const w = this.cg.w;
    for (const { name } of this.staged) {
      const x = this.prefix(name);
      const type = STORAGE[this.cg.array(name).dtype];
      w.line(`${type}* __restrict__ const ${x}_g = const_cast<${type}*>(${this.cg.ids.ptr(name)});`);
      w.line(`const int64_t ${x}_s0 = ${this.cg.ids.stride(name, 0)}, ${x}_s1 = ${this.cg.ids.stride(name, 1)}, ${x}_s2 = ${this.cg.ids.stride(name, 2)};`);
      w.line(`int64_t ${x}_i0 = INT64_MAX, ${x}_i1 = INT64_MIN, ${x}_j0 = INT64_MAX, ${x}_j1 = INT64_MIN, ${x}_k0 = INT64_MAX, ${x}_k1 = INT64_MIN;`);
      for (const b of this.boxes.get(name) ?? []) {
        const n = `${b.vi}_${b.n}`;
        w.open(`if (ilo_${n} < ihi_${n} && jlo_${n} < jhi_${n} && kclo_${b.vi} < kchi_${b.vi}) {`);
        w.line(`${x}_i0 = std::min<int64_t>(${x}_i0, ilo_${n} + ${b.i[0]}); ${x}_i1 = std::max<int64_t>(${x}_i1, ihi_${n} - 1 + ${b.i[1]});`);
        w.line(`${x}_j0 = std::min<int64_t>(${x}_j0, jlo_${n} + ${b.j[0]}); ${x}_j1 = std::max<int64_t>(${x}_j1, jhi_${n} - 1 + ${b.j[1]});`);
        w.line(`${x}_k0 = std::min<int64_t>(${x}_k0, kclo_${b.vi} + ${b.k[0]}); ${x}_k1 = std::max<int64_t>(${x}_k1, kchi_${b.vi} - 1 + ${b.k[1]});`);
        w.close();
      }
      const ext = (a: string) => `${x}_${a}0 <= ${x}_${a}1 ? ${x}_${a}1 - ${x}_${a}0 + 1 : 0`;
      w.line(`const int64_t ${x}_ni = ${ext('i')}, ${x}_nj = ${ext('j')}, ${x}_nk = ${ext('k')}, ${x}_sk = orch::stage_plane(${x}_ni * ${x}_nj);`);
      w.line(`if (${x}_ni == 0 || ${x}_nj == 0 || ${x}_nk == 0) ${x}_i0 = ${x}_j0 = ${x}_k0 = 0;`);
      w.line(`const size_t ${x}_at = tile_bytes;`);
      w.line(`tile_bytes += (static_cast<size_t>(${x}_sk * ${x}_nk) * sizeof(${type}) + 63) / 64 * 64;`);
    }
  }

  /** After the arena is ensured: each array copied in (unless written before read), and its pointer and strides redeclared to address the copy. */
  stageIn(): void {
    const w = this.cg.w;
    for (const { name, written, fill } of this.staged) {
      const x = this.prefix(name);
      const type = STORAGE[this.cg.array(name).dtype];
      w.line(`${type}* __restrict__ const ${x}_p = reinterpret_cast<${type}*>(scratch.base() + ${x}_at);`);
      if (fill) w.line(`if (${x}_nk > 0) orch::stage_columns<${type}>(true, ${x}_g + ${x}_i0 * ${x}_s0 + ${x}_j0 * ${x}_s1 + ${x}_k0 * ${x}_s2, ${x}_s0, ${x}_s1, ${x}_s2, ${x}_p, ${x}_sk, ${x}_nj, ${x}_ni, ${x}_nj, ${x}_nk);`);
      w.line(`${written.length ? '' : 'const '}${type}* __restrict__ const ${this.cg.ids.ptr(name)} = ${x}_p - ${x}_k0 * ${x}_sk - ${x}_i0 * ${x}_nj - ${x}_j0;`);
      w.line(`[[maybe_unused]] const int64_t ${this.cg.ids.stride(name, 0)} = ${x}_nj, ${this.cg.ids.stride(name, 1)} = 1, ${this.cg.ids.stride(name, 2)} = ${x}_sk;`);
    }
  }

  /**
   * At the end of a tile: the arrays it wrote are copied back, the whole box where it was
   * copied in, else only the ranges of the nests writing them (the rest of the box holds no value).
   */
  stageOut(): void {
    const w = this.cg.w;
    for (const { name, written, fill } of this.staged) {
      if (!written.length) continue;
      const x = this.prefix(name);
      const type = STORAGE[this.cg.array(name).dtype];
      const copy = (i0: string, i1: string, j0: string, j1: string, k0: string, k1: string) =>
        `${this.stream ? `orch::stage_columns_back<${type}>(` : `orch::stage_columns<${type}>(false, `}${x}_g + ${i0} * ${x}_s0 + ${j0} * ${x}_s1 + ${k0} * ${x}_s2, ${x}_s0, ${x}_s1, ${x}_s2, ` +
        `${x}_p + (${k0} - ${x}_k0) * ${x}_sk + (${i0} - ${x}_i0) * ${x}_nj + (${j0} - ${x}_j0), ${x}_sk, ${x}_nj, ${i1} - ${i0}, ${j1} - ${j0}, ${k1} - ${k0}` +
        `${this.stream && this.sweptBack.has(name) ? `, ${x}_ss.lo - (${k0}), ${x}_ss.hi - (${k0})` : ''});`;
      if (fill) {
        w.line(`if (${x}_nk > 0) ${copy(`${x}_i0`, `${x}_i1 + 1`, `${x}_j0`, `${x}_j1 + 1`, `${x}_k0`, `${x}_k1 + 1`)}`);
        continue;
      }
      const each = () => {
        for (const { vi, n } of written) {
          const c = `${vi}_${n}`;
          w.line(`if (ilo_${c} < ihi_${c} && jlo_${c} < jhi_${c} && kclo_${vi} < kchi_${vi}) ${copy(`ilo_${c}`, `ihi_${c}`, `jlo_${c}`, `jhi_${c}`, `kclo_${vi}`, `kchi_${vi}`)}`);
        }
      };
      if (!this.stream || written.length !== 2) {
        each();
        continue;
      }
      // Two writers of the same columns over adjacent levels (a solver's last level and the
      // rest): one copy of their union, so the streamed lines are not cut where they meet.
      const [a, b] = written.map(({ vi, n }) => ({ c: `${vi}_${n}`, vi }));
      const same = ['ilo', 'ihi', 'jlo', 'jhi'].map((r) => `${r}_${a.c} == ${r}_${b.c}`).join(' && ');
      w.open(
        `if (${same} && ilo_${a.c} < ihi_${a.c} && jlo_${a.c} < jhi_${a.c} && kclo_${a.vi} < kchi_${a.vi} && kclo_${b.vi} < kchi_${b.vi} && (kchi_${a.vi} == kclo_${b.vi} || kchi_${b.vi} == kclo_${a.vi})) {`,
      );
      w.line(copy(`ilo_${a.c}`, `ihi_${a.c}`, `jlo_${a.c}`, `jhi_${a.c}`, `std::min<int64_t>(kclo_${a.vi}, kclo_${b.vi})`, `std::max<int64_t>(kchi_${a.vi}, kchi_${b.vi})`));
      w.reopen('} else {');
      each();
      w.close();
    }
  }
}
