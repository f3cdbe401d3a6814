import { fusionDelays, type Delay } from '../../core/ir/nestFusion.js';
import { regionsOnly } from '../../core/ir/regionsOnly.js';
import type { VLoop } from '../../core/ir/types.js';
import { forEachStmt } from '../../core/ir/visit.js';
import type { Writer } from './Writer.js';

/**
 * A PARALLEL loop that fuseNests leaves unfused because some nests have horizontal regions
 * (fusedNests.ts; fused, g++ kept testing the regions at every point), split per tile
 * (codegen.splitRegionTiles): where each nest with regions has only regions (edge and
 * corner copies: fixtures/programs/edge_damping.py), a tile clips it to the bounding box of its regions (regionClip.ts), so in
 * most tiles it runs no point at all. Those tiles run the other nests fused, with the delays
 * those nests alone need; the few tiles a region touches run every nest unfused, as before.
 * A nest that runs no point changes nothing, so results are bitwise the same either way.
 */
export interface RegionSplit {
  /** the nests with regions, and the others (indices in the loop) */
  regional: number[];
  rest: number[];
  /** the loop of the other nests, and their delays fused */
  sub: VLoop;
  delays: Delay[];
}

export function regionSplit(v: VLoop, outer: 0 | 1): RegionSplit | undefined {
  if (v.order !== 'PARALLEL') return undefined;
  const regional: number[] = [];
  const rest: number[] = [];
  v.body.forEach((h, n) => {
    let region = false;
    forEachStmt(h.body, (s) => {
      if (s.kind === 'region') region = true;
    });
    (region ? regional : rest).push(n);
  });
  if (!regional.length || rest.length < 2 || regional.some((n) => !regionsOnly(v.body[n]))) return undefined;
  const sub: VLoop = { ...v, body: rest.map((n) => v.body[n]) };
  const delays = fusionDelays(sub, outer);
  return delays && { regional, rest, sub, delays };
}

/**
 * In tile loop `t` (whose ranges are `ilo_<t>_<n>` ...): the fused loop of the other nests
 * where every nest with regions is empty in this tile, renumbered 0.. as `fused` expects,
 * else every nest unfused.
 */
export function emitRegionSplit(w: Writer, split: RegionSplit, t: number, fused: () => void, unfused: () => void): void {
  w.open(`if (${split.regional.map((n) => `(ihi${n} <= ilo${n} || jhi${n} <= jlo${n})`).join(' && ')}) {`);
  split.rest.forEach((n, m) => w.line(`const int64_t ilo${m} = ilo_${t}_${n}, ihi${m} = ihi_${t}_${n}, jlo${m} = jlo_${t}_${n}, jhi${m} = jhi_${t}_${n};`));
  fused();
  w.reopen('} else {');
  unfused();
  w.close();
}
