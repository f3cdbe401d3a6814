import { layoutText, type RankLayout } from './RankLayout.js';
import { layoutRankCount } from '../diagnostics/haloErrors.js';
import { rankNotNumber, unknownTileBoundary } from '../diagnostics/usageErrors.js';

/**
 * Who exchanges halos with whom (docs/mpi.md), as NDSL's `TilePartitioner` numbers ranks:
 * rank r of a tile sits at column `r % x`, row `floor(r / x)`. The same table is written
 * in C++ in native/orch_halo.h; tests check the two give the same results.
 *
 * A rank has up to eight neighbours, one per direction (edges, then corners). On a
 * `periodic` tile they wrap around; on a tile with `edges` there is none across a tile
 * edge, so those halo points keep what the program put there (its regions). Each
 * neighbour carries a rotation in quarter turns: always 0 on one tile; the cubed sphere's
 * rotated tile neighbours are where it will not be.
 */

export type Boundary = 'periodic' | 'edges';
const BOUNDARIES: readonly Boundary[] = ['periodic', 'edges'];

/** Directions as (di, dj), in the order of message tags: W, E, S, N, SW, SE, NW, NE. */
export const DIRECTIONS: readonly [number, number][] = [
  [-1, 0], [1, 0], [0, -1], [0, 1],
  [-1, -1], [1, -1], [-1, 1], [1, 1],
];

export function opposite(dir: number): number {
  const [di, dj] = DIRECTIONS[dir];
  return DIRECTIONS.findIndex(([a, b]) => a === -di && b === -dj);
}

interface Neighbour {
  rank: number;
  /** Quarter turns from this rank's axes to the neighbour's (0 on one tile). */
  rotation: number;
}

export function parseBoundary(text: string): Boundary {
  if (!(BOUNDARIES as readonly string[]).includes(text)) throw unknownTileBoundary(text, BOUNDARIES.join(', '));
  return text as Boundary;
}

/** The neighbour of `rank` in each of DIRECTIONS, or null across a tile edge. */
export function neighbours(layout: RankLayout, boundary: Boundary, rank: number): (Neighbour | null)[] {
  const perTile = layout.x * layout.y;
  if (!Number.isInteger(rank) || rank < 0) throw rankNotNumber(rank);
  const tile = Math.floor(rank / perTile);
  const onTile = rank % perTile;
  const col = onTile % layout.x;
  const row = Math.floor(onTile / layout.x);
  return DIRECTIONS.map(([di, dj]) => {
    let c = col + di;
    let r = row + dj;
    if (boundary === 'periodic') {
      c = (c + layout.x) % layout.x;
      r = (r + layout.y) % layout.y;
    } else if (c < 0 || c >= layout.x || r < 0 || r >= layout.y) return null;
    return { rank: tile * perTile + r * layout.x + c, rotation: 0 };
  });
}

/** Checks a run's rank count against its layout (one tile; the cubed sphere is not built yet). */
export function checkRankCount(layout: RankLayout, size: number): void {
  if (size !== layout.x * layout.y) {
    throw layoutRankCount(layoutText(layout), layout.x * layout.y, size);
  }
}

/** A box of array points: [lo, hi) along I and J; K is whole. */
export interface Box {
  i: [number, number];
  j: [number, number];
}

/**
 * The compute points a rank sends towards `dir` (`send`), and the halo points it fills
 * from the neighbour in `dir` (`recv`), for compute size nx x ny starting at (halo, halo).
 * Both are walked I, then J, then K, outermost first, so packing and unpacking agree.
 */
export function haloBoxes(nx: number, ny: number, halo: number, width: number, dir: number): { send: Box; recv: Box } {
  const [di, dj] = DIRECTIONS[dir];
  const span = (d: number, n: number, inside: boolean): [number, number] => {
    if (d === 0) return [halo, halo + n];
    if (inside) return d < 0 ? [halo, halo + width] : [halo + n - width, halo + n];
    return d < 0 ? [halo - width, halo] : [halo + n, halo + n + width];
  };
  return {
    send: { i: span(di, nx, true), j: span(dj, ny, true) },
    recv: { i: span(di, nx, false), j: span(dj, ny, false) },
  };
}

/** The rank an MPI launcher gave this process (OpenMPI, MPICH/Hydra, PMIx), if any. */
export function launcherRank(env: NodeJS.ProcessEnv = process.env): number | undefined {
  for (const v of ['OMPI_COMM_WORLD_RANK', 'PMI_RANK', 'PMIX_RANK']) {
    const n = Number(env[v]);
    if (env[v] && Number.isInteger(n) && n >= 0) return n;
  }
  return undefined;
}
