import type { Codegen } from './Codegen.js';
import type { HLoop } from '../../core/ir/types.js';
import { regionsOnly } from '../../core/ir/regionsOnly.js';
import { narrowToRegions } from './regionClip.js';

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

/**
 * The number of tiles along I, J and K (`nti`, `ntj`, `ntk`). The last tile along I and J
 * takes the remainder (up to twice the size) instead of a tile of its own: each cut
 * over-computes the nests' halo again (ppm at 12x12x79: one 6x6 tile, not 4x6 + 2x6, 9%
 * fewer instructions). K keeps its cut: full K tiles run a compile-time trip count.
 */
export function tileCounts(cg: Codegen, ti: string | number, tj: string | number, tk: number | undefined): void {
  cg.w.line(`const int64_t nti = std::max<int64_t>(1, dom0 / ${ti}), ntj = std::max<int64_t>(1, dom1 / ${tj}), ntk = ${tk ? `std::max<int64_t>(1, (dom2 + ${tk - 1}) / ${tk})` : '1'};`);
}

/**
 * Inside tile (ti, tj): each nest's index range (`ilo_<name>` ...), its part of the tile
 * grown by the halo it over-computes (`grow`), clipped to the nest's own range (`Ilo_<name>`
 * ...); a nest made only of horizontal regions is narrowed to them.
 */
export function nestBounds(cg: Codegen, nests: readonly { h: HLoop; name: string }[], size: readonly (string | number)[]): void {
  const cut = (axis: 'i' | 'j', index: string) => tileCut(cg, axis, index, size[axis === 'i' ? 0 : 1]);
  for (const { h, name } of nests) {
    const g = h.grow ?? [0, 0, 0, 0];
    const regions = regionsOnly(h);
    cg.w.line(
      `${regions ? 'int64_t' : 'const int64_t'} ilo_${name} = ti == 0 ? Ilo_${name} : std::max<int64_t>(Ilo_${name}, ${cut('i', 'ti')} - ${g[0]}), ` +
        `ihi_${name} = ti == nti - 1 ? Ihi_${name} : std::min<int64_t>(Ihi_${name}, ${cut('i', '(ti + 1)')} + ${g[1]}), ` +
        `jlo_${name} = tj == 0 ? Jlo_${name} : std::max<int64_t>(Jlo_${name}, ${cut('j', 'tj')} - ${g[2]}), ` +
        `jhi_${name} = tj == ntj - 1 ? Jhi_${name} : std::min<int64_t>(Jhi_${name}, ${cut('j', '(tj + 1)')} + ${g[3]});`,
    );
    if (regions) narrowToRegions(cg.w, regions, { ilo: `ilo_${name}`, ihi: `ihi_${name}`, jlo: `jlo_${name}`, jhi: `jhi_${name}` });
  }
}
