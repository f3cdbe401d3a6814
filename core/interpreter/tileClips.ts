import type { HLoop, Tiling } from '../ir/types.js';

/** A tile's clip of a nest's [ilo, ihi, jlo, jhi] and of a loop's K range. */
export interface Clip {
  ij: (h: HLoop, range: [number, number, number, number]) => [number, number, number, number];
  k: (klo: number, khi: number) => [number, number];
  /** the tile's place in the grid: its indices along I and J and the tile counts */
  cell: { a: number; b: number; nti: number; ntj: number };
}

/**
 * The tiles of a tiled launch over `domain`, in the order the backends run them, each as the
 * clip it applies to every nest (grown by the nest's over-computed halo, `h.grow`). The
 * first and last tile along an axis keep the nest's own bounds, so nests grown by extents
 * keep their halo points; an empty domain still has one tile.
 */
export function forEachTileClip(tile: Tiling, domain: readonly number[], visit: (clip: Clip) => void): void {
  const [ti, tj] = tile.size;
  const tk = tile.k ?? Infinity;
  const [d0, d1, d2] = domain;
  const nti = Math.max(1, Math.ceil(d0 / ti));
  const ntj = Math.max(1, Math.ceil(d1 / tj));
  const ntk = tile.k ? Math.max(1, Math.ceil(d2 / tk)) : 1;
  for (let a = 0; a < nti; a++) {
    for (let b = 0; b < ntj; b++) {
      for (let c = 0; c < ntk; c++) {
        visit({
          ij: (h, [ilo, ihi, jlo, jhi]) => {
            const g = h.grow ?? [0, 0, 0, 0];
            return [
              a === 0 ? ilo : Math.max(ilo, a * ti - g[0]),
              a === nti - 1 ? ihi : Math.min(ihi, (a + 1) * ti + g[1]),
              b === 0 ? jlo : Math.max(jlo, b * tj - g[2]),
              b === ntj - 1 ? jhi : Math.min(jhi, (b + 1) * tj + g[3]),
            ];
          },
          cell: { a, b, nti, ntj },
          k: (klo, khi) => [c === 0 ? klo : Math.max(klo, c * tk), c === ntk - 1 ? khi : Math.min(khi, (c + 1) * tk)],
        });
      }
    }
  }
}
