import { allocate, type NDArray } from '../core/runtime/ndarray.js';
import type { RankLayout } from '../core/layout/RankLayout.js';

/**
 * One global domain cut into the local arrays of a layout's ranks (NDSL's numbering: rank
 * r at column r % x, row r / x), and the ranks' results put back together: the halo tests'
 * bookkeeping.
 */
export const HALO = 3;

export interface GlobalDomain {
  /** compute points along I and J, and levels */
  n: number;
  nz: number;
}

/** Deterministic, irregular values over the whole array, halo included. */
export function globalField(d: GlobalDomain, seed: number): NDArray {
  const size = d.n + 2 * HALO;
  const a = allocate('float64', [size, size, d.nz]);
  const data = a.data as Float64Array;
  for (let i = 0; i < size; i++) {
    for (let j = 0; j < size; j++) {
      for (let k = 0; k < d.nz; k++) data[(i * size + j) * d.nz + k] = 0.1 + (((i * 7 + j * 13 + k * 5 + seed * 3) % 17) / 17) * Math.cos(i * 0.3 + seed) + 0.01 * j;
    }
  }
  return a;
}

export function localShape(d: GlobalDomain, layout: RankLayout): [number, number, number] {
  return [d.n / layout.x + 2 * HALO, d.n / layout.y + 2 * HALO, d.nz];
}

/** The local array of `rank`: its compute domain and the halo around it, from the global array. */
export function scatter(global: NDArray, d: GlobalDomain, layout: RankLayout, rank: number): NDArray {
  const [sx, sy, nz] = localShape(d, layout);
  const col = rank % layout.x;
  const row = Math.floor(rank / layout.x);
  const gsize = d.n + 2 * HALO;
  const out = allocate('float64', [sx, sy, nz]);
  const src = global.data as Float64Array;
  const dst = out.data as Float64Array;
  for (let i = 0; i < sx; i++) {
    for (let j = 0; j < sy; j++) {
      const gi = col * (sx - 2 * HALO) + i;
      const gj = row * (sy - 2 * HALO) + j;
      for (let k = 0; k < nz; k++) dst[(i * sy + j) * nz + k] = src[(gi * gsize + gj) * nz + k];
    }
  }
  return out;
}

/** The global compute domain (n x n x nz, no halo) from the ranks' local arrays. */
export function gather(locals: NDArray[], d: GlobalDomain, layout: RankLayout): Float64Array {
  const out = new Float64Array(d.n * d.n * d.nz);
  locals.forEach((a, rank) => {
    const [sx, sy, nz] = a.shape;
    const col = rank % layout.x;
    const row = Math.floor(rank / layout.x);
    const data = a.data as Float64Array;
    for (let i = 0; i < sx - 2 * HALO; i++) {
      for (let j = 0; j < sy - 2 * HALO; j++) {
        const gi = col * (sx - 2 * HALO) + i;
        const gj = row * (sy - 2 * HALO) + j;
        for (let k = 0; k < nz; k++) out[(gi * d.n + gj) * nz + k] = data[((i + HALO) * sy + j + HALO) * nz + k];
      }
    }
  });
  return out;
}

/** Index of the first point where two results differ (-1: bit for bit equal, NaN included). */
export function firstDifference(a: Float64Array, b: Float64Array): number {
  if (a.length !== b.length) return 0;
  for (let n = 0; n < a.length; n++) if (!Object.is(a[n], b[n])) return n;
  return -1;
}
