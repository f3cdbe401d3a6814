import type { Launch, Tiling } from '../../core/ir/types.js';
import { versionReach, versionWriters } from '../../core/ir/tileVersions.js';
import type { Codegen } from './Codegen.js';
import { STORAGE } from './cText.js';
import { narrowToRegions } from './regionClip.js';
import { tileCut } from './tileCuts.js';
import { regionsOnly } from '../../core/ir/regionsOnly.js';

/**
 * The CPU's code for arrays a tiled launch versions per tile (Tiling.versioned, see
 * plugins/simplify/inPlaceVersions.ts). Inside a tile the array's pointer and strides are
 * redeclared to address its version in the tile's scratch arena, so the nests' code is the
 * one they have for any tile-local array; the array's own pointer and strides are kept
 * under other names first, to fill the version and to commit it. The interpreter runs the
 * same protocol (core/interpreter/versionedTiles.ts).
 */
/** One side of a column copy: pointer, strides, and the row index its data sits at (a rolled version's slot). */
interface Side {
  p: string;
  s: (pos: number) => string;
  i?: string;
}

export class TileVersionCode {
  private readonly versioned: NonNullable<Tiling['versioned']>;
  /** Versions that keep only a few rows, slot `i & mask` (codegen.rollVersions, streamedVersions.ts). */
  private readonly rolled = new Map<string, number>();

  constructor(
    private readonly cg: Codegen,
    private readonly s: Launch,
    private readonly tile: Tiling,
  ) {
    this.versioned = tile.versioned ?? [];
  }

  /** Version `name` keeps only rows r & mask (streamedVersions.ts). */
  roll(name: string, mask: number): void {
    this.rolled.set(name, mask);
  }

  /** The row index of version `name` for row `i`. */
  private slot(name: string): string {
    const mask = this.rolled.get(name);
    return mask === undefined ? 'i' : `(i & ${mask})`;
  }

  private global(name: string): { ptr: string; stride: (pos: number) => string } {
    const x = this.cg.ids.local(`global_${name}`);
    return { ptr: `${x}_p`, stride: (pos) => `${x}_s${pos}` };
  }

  /** At the top of a tile's body: the arrays' own pointers and strides, before their versions hide them. */
  keepGlobals(): void {
    for (const { name } of this.versioned) {
      const g = this.global(name);
      const type = STORAGE[this.cg.array(name).dtype];
      this.cg.w.line(`${type}* __restrict__ const ${g.ptr} = ${this.cg.ids.ptr(name)};`);
      this.cg.w.line(`const int64_t ${[0, 1, 2].map((pos) => `${g.stride(pos)} = ${this.cg.ids.stride(name, pos)}`).join(', ')};`);
    }
  }

  /**
   * After the versions' pointers are declared: each is filled from its array over its box
   * (`rows`: only the rows [lo, hi] of the box along the order's outer axis, and `cols` the
   * columns [lo, hi] along the other horizontal one: streamedVersions.ts).
   */
  fill(box: (name: string) => string, order: string, rows?: (name: string) => { lo: string; hi: string }, only?: string, cols?: { lo: string; hi: string }): void {
    const w = this.cg.w;
    for (const { name, fill } of this.versioned) {
      if (!fill || (only !== undefined && only !== name)) continue;
      const g = this.global(name);
      const x = box(name);
      const p = this.cg.ids.ptr(name);
      const index = (s: (pos: number) => string, row = 'i') => `${row} * ${s(0)} + j * ${s(1)} + k * ${s(2)}`;
      w.open(`if (${x}_ni > 0 && ${x}_nj > 0 && ${x}_nk > 0) {`);
      // K innermost (C-ordered fields, the CPU presets): whole columns at a time
      const kInner = order[2] === 'K';
      for (const [depth, axis] of [...(kInner ? order.slice(0, 2) : order)].entries()) {
        const v = axis.toLowerCase();
        const r = depth === 0 ? rows?.(name) : depth === 1 && kInner ? cols : undefined;
        w.open(`for (int64_t ${v} = ${r ? `std::max<int64_t>(${x}_${v}0, ${r.lo})` : `${x}_${v}0`}; ${v} <= ${r ? `std::min<int64_t>(${x}_${v}1, ${r.hi})` : `${x}_${v}1`}; ++${v}) {`);
      }
      if (kInner) {
        w.line(`const int64_t ck0 = ${x}_k0, ck1 = ${x}_k1 + 1;`);
        this.column(STORAGE[this.cg.array(name).dtype], { p, s: (pos) => this.cg.ids.stride(name, pos), i: this.slot(name) }, { p: g.ptr, s: g.stride });
      } else w.line(`${p}[${index((pos) => this.cg.ids.stride(name, pos), this.slot(name))}] = ${g.ptr}[${index(g.stride)}];`);
      for (let d = kInner ? 1 : 0; d < 3; d++) w.close();
      w.close();
    }
  }

  /**
   * The loops over the points a tile's writer nest owns (its range clipped to the tile,
   * ungrown), K innermost; `body(band)` is emitted per column, `band` true where a
   * neighbouring tile reads the column (computed only when `banded`); `rows` and `cols`:
   * only those rows [lo, hi) and columns [lo, hi) of them.
   */
  private ownedColumns(name: string, body: (band: string) => void, banded = true, rows?: { lo: string; hi: string }, cols?: { lo: string; hi: string }): void {
    const w = this.cg.w;
    const [ti, tj] = this.tile.size;
    const cut = (axis: 'i' | 'j', index: string) => tileCut(this.cg, axis, index, axis === 'i' ? ti : tj);
    const r = versionReach(this.s, name);
    for (const { vi, n } of versionWriters(this.s, name)) {
      const c = `${vi}_${n}`;
      w.open('{');
      // a writer that writes only in regions owns only their points (regionClip.ts)
      const regions = regionsOnly(this.s.loops[vi].body[n]);
      w.line(
        `${regions ? 'int64_t' : 'const int64_t'} ci0 = ti == 0 ? Ilo_${c} : std::max<int64_t>(Ilo_${c}, ${cut('i', 'ti')}), ci1 = ti == nti - 1 ? Ihi_${c} : std::min<int64_t>(Ihi_${c}, ${cut('i', '(ti + 1)')}), ` +
          `cj0 = tj == 0 ? Jlo_${c} : std::max<int64_t>(Jlo_${c}, ${cut('j', 'tj')}), cj1 = tj == ntj - 1 ? Jhi_${c} : std::min<int64_t>(Jhi_${c}, ${cut('j', '(tj + 1)')});`,
      );
      if (regions) narrowToRegions(w, regions, { ilo: 'ci0', ihi: 'ci1', jlo: 'cj0', jhi: 'cj1' });
      const tk = this.tile.k;
      if (tk) w.line(`const int64_t ck0 = tk == 0 ? klo_${vi} : std::max<int64_t>(klo_${vi}, tk * ${tk}), ck1 = tk == ntk - 1 ? khi_${vi} : std::min<int64_t>(khi_${vi}, (tk + 1) * ${tk});`);
      else w.line(`const int64_t ck0 = klo_${vi}, ck1 = khi_${vi};`);
      w.open(rows ? `for (int64_t i = std::max<int64_t>(ci0, ${rows.lo}); i < std::min<int64_t>(ci1, ${rows.hi}); ++i) {` : 'for (int64_t i = ci0; i < ci1; ++i) {');
      // within reach of a cut of this tile: a neighbour reads it (core/ir/tileVersions.ts)
      if (banded) w.line(`const bool band_i = (ti > 0 && i < ${cut('i', 'ti')} + ${r[1]}) || (ti < nti - 1 && i >= ${cut('i', '(ti + 1)')} - ${r[0]});`);
      w.open(cols ? `for (int64_t j = std::max<int64_t>(cj0, ${cols.lo}); j < std::min<int64_t>(cj1, ${cols.hi}); ++j) {` : 'for (int64_t j = cj0; j < cj1; ++j) {');
      if (banded) w.line(`const bool band = band_i || (tj > 0 && j < ${cut('j', 'tj')} + ${r[3]}) || (tj < ntj - 1 && j >= ${cut('j', '(tj + 1)')} - ${r[2]});`);
      body('band');
      w.close();
      w.close();
      w.close();
    }
  }

  /**
   * Copies column (i, j) over [ck0, ck1) from `src` to `dst`. Strides are run-time values: g++
   * checks them (and the pointers' overlap) per column, and a tile's columns are short, so
   * where both K strides are 1 (C-ordered fields) the copy is a contiguous one, of the K tile's
   * compile-time length in the full K tiles (a few vector moves).
   */
  private column(type: string, dst: Side, src: Side): void {
    const w = this.cg.w;
    const row = (x: Side) => `${x.p} + ${x.i ?? 'i'} * ${x.s(0)} + j * ${x.s(1)}`;
    w.open(`if (${dst.s(2)} == 1 && ${src.s(2)} == 1) {`);
    w.line(`${type}* __restrict__ const to = ${row(dst)};`);
    w.line(`const ${type}* __restrict__ const from = ${row(src)};`);
    // (a loop of constant length g++ unrolls into scalar moves; a memcpy of constant size into vector ones)
    const tk = this.tile.k;
    if (tk) w.line(`if (ck1 - ck0 == ${tk}) std::memcpy(to + ck0, from + ck0, ${tk} * sizeof(${type}));`);
    w.line(`${tk ? 'else ' : ''}std::memcpy(to + ck0, from + ck0, static_cast<size_t>(ck1 - ck0) * sizeof(${type}));`);
    w.reopen('} else {');
    w.directive('#pragma GCC ivdep');
    w.line(`for (int64_t k = ck0; k < ck1; ++k) ${dst.p}[${dst.i ?? 'i'} * ${dst.s(0)} + j * ${dst.s(1)} + k * ${dst.s(2)}] = ${src.p}[${src.i ?? 'i'} * ${src.s(0)} + j * ${src.s(1)} + k * ${src.s(2)}];`);
    w.close();
  }

  /**
   * At the end of a tile: the owned points go to the array, or to its shadow where a neighbour
   * still reads them (`rows`, `cols`: only those, as ownedColumns). A version that is not filled (written before it is read, as the dycore's
   * `p`) never has its array read inside the launch, so no neighbour waits for its input values
   * and every owned point goes straight to the array: no shadow, no second pass.
   */
  commit(rows?: { lo: string; hi: string }, only?: string, cols?: { lo: string; hi: string }): void {
    const w = this.cg.w;
    for (const { name, shadow, fill } of this.versioned) {
      if (only !== undefined && only !== name) continue;
      const g = this.global(name);
      const p = this.cg.ids.ptr(name);
      const sp = this.cg.ids.ptr(shadow);
      const type = STORAGE[this.cg.array(name).dtype];
      const version: Side = { p, s: (pos) => this.cg.ids.stride(name, pos), i: this.slot(name) };
      this.ownedColumns(name, (band) => {
        if (fill) {
          w.open(`if (${band}) {`);
          this.column(type, { p: sp, s: (pos) => this.cg.ids.stride(shadow, pos) }, version);
          w.reopen('} else {');
        }
        this.column(type, { p: g.ptr, s: g.stride }, version);
        if (fill) w.close();
      }, fill, rows, cols);
    }
  }

  /** The versioned arrays: name, and whether the version is filled from the array. */
  arrays(): { name: string; fill: boolean }[] {
    return this.versioned.map(({ name, fill }) => ({ name, fill }));
  }

  /** Whether some version commits through its shadow, so publish() has work. */
  publishes(): boolean {
    return this.versioned.some((x) => x.fill);
  }

  /** After every tile (in a second pass over the tiles): the shadowed points reach their arrays. */
  publish(): void {
    const w = this.cg.w;
    for (const { name, shadow } of this.versioned.filter((x) => x.fill)) {
      const p = this.cg.ids.ptr(name);
      const sp = this.cg.ids.ptr(shadow);
      const type = STORAGE[this.cg.array(name).dtype];
      this.ownedColumns(name, (band) => {
        w.line(`if (!${band}) continue;`);
        this.column(type, { p, s: (pos) => this.cg.ids.stride(name, pos) }, { p: sp, s: (pos) => this.cg.ids.stride(shadow, pos) });
      });
    }
  }
}
