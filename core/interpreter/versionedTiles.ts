import type { Expr, HLoop, Launch, Tiling, VLoop } from '../ir/types.js';
import { tileLocalBoxes } from '../ir/tileBoxes.js';
import { versionReach, versionWriters, type Reach } from '../ir/tileVersions.js';
import { poison, type ArrayState } from './arrayState.js';
import type { Clip } from './tileClips.js';

/**
 * The oracle's side of versioned in-place arrays (Tiling.versioned, see
 * plugins/simplify/inPlaceVersions.ts), as the CPU backend runs them: at a tile's start
 * its version is filled from the array over the box the tile touches (the rest is
 * poisoned, so a box too small changes results) and the tile's nests address it in place
 * of the array; at its end the points its writer nests own are committed, those within
 * reach of a cut only after every tile has run.
 */
export class VersionedTiles {
  private readonly items: {
    global: ArrayState;
    /** the array's own data, while a tile addresses its version */
    data: ArrayState['data'];
    version: ArrayState['data'];
    reach: Reach;
    writers: { v: VLoop; h: HLoop }[];
    boxes: NonNullable<ReturnType<ReturnType<typeof tileLocalBoxes>['get']>>;
    fill: boolean;
    pending: [number, number][];
  }[];

  constructor(
    private readonly launch: Launch,
    private readonly tile: Tiling,
    arrays: Map<string, ArrayState>,
    private readonly evalHost: (e: Expr) => number,
  ) {
    const boxes = tileLocalBoxes(launch, tile);
    this.items = (tile.versioned ?? []).map((x) => {
      const global = arrays.get(x.name)!;
      return {
        global,
        data: global.data,
        version: new (global.data.constructor as new (n: number) => ArrayState['data'])(global.data.length),
        reach: versionReach(launch, x.name),
        writers: versionWriters(launch, x.name),
        boxes: boxes.get(x.name) ?? [],
        fill: x.fill,
        pending: [],
      };
    });
  }

  private range(h: HLoop): [number, number, number, number] {
    return [this.evalHost(h.i.lo), this.evalHost(h.i.hi), this.evalHost(h.j.lo), this.evalHost(h.j.hi)];
  }

  private static at(st: ArrayState, i: number, j: number, k: number): number {
    return (st.origin[0] + i) * st.strides[0] + (st.origin[1] + j) * st.strides[1] + (st.origin[2] + k) * st.strides[2];
  }

  /** Fills each version from its array over the box the tile's nests touch (poison where it needs no input value). */
  begin(clip: Clip): void {
    for (const it of this.items) {
      const g = it.global;
      it.version.fill(poison(g.decl.dtype) as never);
      g.data = it.version;
      if (!it.fill) continue;
      let [i0, i1, j0, j1, k0, k1] = [Infinity, -Infinity, Infinity, -Infinity, Infinity, -Infinity];
      for (const b of it.boxes) {
        const v = this.launch.loops[b.vi];
        const h = v.body[b.n];
        const [ilo, ihi, jlo, jhi] = clip.ij(h, this.range(h));
        const [klo, khi] = clip.k(this.evalHost(v.k.lo), this.evalHost(v.k.hi));
        if (ilo >= ihi || jlo >= jhi || klo >= khi) continue;
        i0 = Math.min(i0, ilo + b.i[0]);
        i1 = Math.max(i1, ihi - 1 + b.i[1]);
        j0 = Math.min(j0, jlo + b.j[0]);
        j1 = Math.max(j1, jhi - 1 + b.j[1]);
        k0 = Math.min(k0, klo + b.k[0]);
        k1 = Math.max(k1, khi - 1 + b.k[1]);
      }
      for (let i = i0; i <= i1; i++) {
        for (let j = j0; j <= j1; j++) {
          for (let k = k0; k <= k1; k++) {
            const at = VersionedTiles.at(g, i, j, k);
            it.version[at] = it.data[at];
          }
        }
      }
    }
  }

  /** Commits the points the tile's writer nests own: directly, or after every tile when a neighbour reads them. */
  end(clip: Clip): void {
    const [ti, tj] = this.tile.size;
    const { a, b, nti, ntj } = clip.cell;
    for (const it of this.items) {
      it.global.data = it.data;
      const r = it.reach;
      const band = (i: number, j: number) =>
        (a > 0 && i < a * ti + r[1]) || (a < nti - 1 && i >= (a + 1) * ti - r[0]) || (b > 0 && j < b * tj + r[3]) || (b < ntj - 1 && j >= (b + 1) * tj - r[2]);
      for (const { v, h } of it.writers) {
        const [ilo, ihi, jlo, jhi] = clip.ij({ ...h, grow: undefined }, this.range(h));
        const [klo, khi] = clip.k(this.evalHost(v.k.lo), this.evalHost(v.k.hi));
        for (let i = ilo; i < ihi; i++) {
          for (let j = jlo; j < jhi; j++) {
            // an unfilled version's array is not read inside the launch: nobody waits for it
            const later = it.fill && band(i, j);
            for (let k = klo; k < khi; k++) {
              const at = VersionedTiles.at(it.global, i, j, k);
              if (later) it.pending.push([at, it.version[at]]);
              else it.data[at] = it.version[at];
            }
          }
        }
      }
    }
  }

  /** After every tile: the points committed through the shadow. */
  finish(): void {
    for (const it of this.items) {
      for (const [at, value] of it.pending) it.data[at] = value;
      it.pending = [];
    }
  }
}
