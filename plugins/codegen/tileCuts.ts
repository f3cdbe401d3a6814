import type { Codegen } from './Codegen.js';

/**
 * Where tile `index` (a C++ expression: `ti`, `(ti + 1)`) starts along I or J, in the
 * domain's coordinates. By default at `index * size`, the last tile taking the remainder
 * (up to twice the size: the dycore's 124 columns in tiles of 36 are 36, 36 and 52 wide). With
 * codegen.balancedTiles the same number of tiles share the domain evenly (41, 41, 42): a
 * thread's share of the work is then its share of the tiles, which matters with few tiles
 * per thread. Tiles are never narrower than `size`, and a tile's results do not depend on
 * where it is cut: results are bitwise the same. Staged sweep tiles of a run-time size
 * (`tsi`, `tsj`: their blocks of columns are exactly that wide) keep their cuts.
 */
export function tileCut(cg: Codegen, axis: 'i' | 'j', index: string, size: string | number): string {
  const [dom, n] = axis === 'i' ? ['dom0', 'nti'] : ['dom1', 'ntj'];
  return cg.opts.balancedTiles && typeof size === 'number' ? `(${index} * ${dom} / ${n})` : `${index} * ${size}`;
}
