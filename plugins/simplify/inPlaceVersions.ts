import type { ArrayDecl, Expr, Launch } from '../../core/ir/types.js';
import { versionReach } from '../../core/ir/tileVersions.js';
import { definitelyWritten } from '../../core/ir/writtenBeforeRead.js';

/**
 * Versions per tile for arrays a tiled launch updates in place and reads beyond the tile
 * (del-n damping's `q`, the dycore's `u`, `v`, `delp`): without them, a tile would read a
 * neighbour's new values where the untiled launch reads the old ones, so tiling had to be
 * refused and every nest streamed its fields through memory.
 *
 * Inside a tile the launch's nests address a tile-local copy (the version) instead: each
 * tile fills it from the array over the points it touches, its nests over-compute the array's halo like
 * any tile-local value, and it commits the points its writer nests own when it ends.
 * Points a neighbour still has to read, within the reach of a tile cut, are committed
 * through a shadow transient after every tile has run (core/ir/tileVersions.ts). Results
 * are those of the untiled launch: every tile reads the launch's input values outside
 * what it computes itself.
 */

/** Whether `a` can be versioned: a plain IJK array read at constant offsets only. */
export function versionable(a: ArrayDecl | undefined, variableK: Set<string>): a is ArrayDecl {
  return !!a && a.axes === 'IJK' && !a.dims?.length && !variableK.has(a.name);
}

/**
 * Points committed through the shadow per tile cut are a tile's slowest: a tile is made
 * at least this many times as wide as the band around its cuts (in units of the preset's
 * tile, so its shape stays what the preset chose where no band needs more).
 */
const TILE_PER_BAND = 4;

/**
 * Levels per tile of a versioned launch that may be cut along K where the preset cuts none
 * (`codegen.versionedTileK`, false for whole columns): the versions, the tile-local arrays
 * and the fields a tile reads must stay in L2 together, and widened tiles of whole columns
 * did not (cachegrind: more misses than untiled). Whether that makes them faster is for
 * orch tune to time.
 */
export const VERSION_K = 16;

function unique(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

function shapeOf(a: ArrayDecl): Expr[] {
  return a.shape ?? [0, 1, 2].map((axis): Expr => ({ kind: 'shape', name: a.name, axis, dtype: 'int64' }));
}

/** Versions each of `arrays` in the tiled launch `l`; the shadow transients are returned to be declared. */
export function versionInPlace(l: Launch, arrays: ArrayDecl[], taken: Set<string>, mayCutK: boolean, versionK: number | false = VERSION_K): { launch: Launch; decls: ArrayDecl[] } {
  const tile = l.tile!;
  const decls: ArrayDecl[] = [];
  const origins = { ...l.origins };
  const versioned = arrays.map((a) => {
    const shadow = unique(`${a.name}__shadow`, taken);
    decls.push({ name: shadow, dtype: a.dtype, axes: 'IJK', role: 'transient', shape: shapeOf(a), loc: a.loc });
    origins[shadow] = l.origins[a.name];
    // written at every point the launch reads before it is read: no input value is needed
    return { name: a.name, shadow, fill: !definitelyWritten(a.name, l) };
  });
  // wide enough tiles that the band around their cuts stays a small share of them
  const size = [...tile.size] as [number, number];
  for (const x of versioned) {
    const r = versionReach(l, x.name);
    for (const axis of [0, 1]) {
      const band = r[2 * axis] + r[2 * axis + 1];
      const unit = tile.size[axis];
      size[axis] = Math.max(size[axis], Math.ceil((TILE_PER_BAND * band) / unit) * unit);
    }
  }
  return {
    launch: { ...l, origins, transients: [...l.transients, ...versioned.map((x) => x.shadow)], tile: { ...tile, size, ...(mayCutK && !tile.k && versionK !== false ? { k: versionK } : {}), versioned } },
    decls,
  };
}
