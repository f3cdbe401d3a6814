import { layoutNotNxN, rankOutsideLayout } from '../diagnostics/usageErrors.js';
import { layoutNotSupported } from '../diagnostics/haloErrors.js';

/**
 * Rank layouts and code paths (ARCHITECTURE §5), as NDSL defines them.
 *
 * A tile of the cube sphere is split into `x` ranks along I and `y` ranks along J;
 * within a tile, rank r sits at column `r % x` and row `floor(r / x)` (NDSL's
 * `subtile_index` with its layout tuple `(y, x)`), and a cube sphere has six tiles, so
 * rank r of the whole run is rank `r % (x * y)` of its tile. Which tile edges a rank
 * touches decides its horizontal regions, so one program has at most nine code paths,
 * named as NDSL names them (`FV3CodePath`): A for a 1x1 layout (every edge), else
 * BL, B, BR, L, C, R, TL, T, TR by position (B = bottom = south, L = left = west).
 */

/** NDSL's default halo width (n_halo): the compute domain starts at (3, 3, 0) of every array. */
export const DEFAULT_HALO = 3;

export type CodePath = 'A' | 'BL' | 'B' | 'BR' | 'L' | 'C' | 'R' | 'TL' | 'T' | 'TR';

const CODE_PATHS: readonly CodePath[] = ['A', 'BL', 'B', 'BR', 'L', 'C', 'R', 'TL', 'T', 'TR'];

export interface RankLayout {
  /** Ranks along I (x) and along J (y) on one tile. */
  x: number;
  y: number;
}

/** Which tile edges a code path's ranks touch. */
interface TileEdges {
  west: boolean;
  east: boolean;
  south: boolean;
  north: boolean;
}

export function layoutText(layout: RankLayout): string {
  return `${layout.x}x${layout.y}`;
}

/** `3x3`, `2x4` (ranks along I x ranks along J). */
export function parseLayout(text: string): RankLayout {
  const m = /^\s*(\d+)\s*[xX,]\s*(\d+)\s*$/.exec(text);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) {
    throw layoutNotNxN(text);
  }
  return { x: Number(m[1]), y: Number(m[2]) };
}

/**
 * The distinct code paths of a layout: 1 for 1x1, 4 for 2x2, 6 for 2x3, 9 for 3x3 and
 * above. A layout with a single rank along one axis only (1x4) puts both edges of that
 * axis on every rank, a combination NDSL's nine paths do not name: it is refused.
 */
export function codePaths(layout: RankLayout): CodePath[] {
  checkSupported(layout);
  if (layout.x === 1 && layout.y === 1) return ['A'];
  const seen = new Set<CodePath>();
  for (let r = 0; r < layout.x * layout.y; r++) seen.add(codePathOfRank(layout, r));
  return CODE_PATHS.filter((c) => seen.has(c));
}

function checkSupported(layout: RankLayout): void {
  if ((layout.x === 1) !== (layout.y === 1)) {
    const axis = layout.x === 1 ? 'I' : 'J';
    throw layoutNotSupported(layoutText(layout), axis);
  }
}

/** The code path of `rank` (of the whole run: 6 tiles of x*y ranks). */
export function codePathOfRank(layout: RankLayout, rank: number): CodePath {
  checkSupported(layout);
  const perTile = layout.x * layout.y;
  if (!Number.isInteger(rank) || rank < 0 || rank >= 6 * perTile) {
    throw rankOutsideLayout(rank, layoutText(layout), perTile, 6 * perTile - 1);
  }
  if (perTile === 1) return 'A';
  const onTile = rank % perTile;
  const col = onTile % layout.x;
  const row = Math.floor(onTile / layout.x);
  const ew = col === 0 ? 'L' : col === layout.x - 1 ? 'R' : '';
  const sn = row === 0 ? 'B' : row === layout.y - 1 ? 'T' : '';
  return ((sn + ew) || 'C') as CodePath;
}

export function edgesOf(path: CodePath): TileEdges {
  if (path === 'A') return { west: true, east: true, south: true, north: true };
  return { west: path.endsWith('L'), east: path.endsWith('R'), south: path.startsWith('B'), north: path.startsWith('T') };
}

/** What a layout build is specialized for (recorded in build info, part of the cache key). */
export interface LayoutTarget {
  layout: RankLayout;
  /** Compute domain of one rank: nx, ny, nz. */
  domain: [number, number, number];
  /** Halo width: the compute domain starts at (halo, halo, 0) in every array (NDSL's n_halo). */
  halo: number;
}
