import type { Launch } from '../../core/ir/types.js';
import { fusionDelays } from '../../core/ir/nestFusion.js';

/**
 * Per-launch tile shapes (`codegen.tile: 'auto'`): one tile for every launch is the wrong
 * abstraction, since what a tile must keep in cache depends on what the launch is. The tiling
 * pass classifies each tiled launch with `launchTileKind` and takes the shape of its kind
 * from LAUNCH_TILES; an explicit `codegen.tile` overrides the table for every launch.
 */
export type LaunchTileKind = 'sweep' | 'versioned' | 'rolledVersions' | 'fusedHalo' | 'halo' | 'pointwise';

export type TileShape = [number, number] | [number, number, number];

/**
 * The shape per kind. Evidence (128x128x80 or 134x134x80, AVX-512 unless said):
 * - sweep: FORWARD/BACKWARD tiles sweep 32-wide vectors level by level; 16x32 was slower in
 *   a quiet A/B (vertical_solver 4.77 -> 6.09 ms), so they keep 4x32.
 * - fusedHalo: fused nests keep a few rows of each temporary whatever the tile, so a tall
 *   tile over-computes less halo at no cost in cache (hdiff 134x134x80, cachegrind AVX2,
 *   instructions / D1 misses / 1 MB LL misses a point: 4x32 16.4 / 1.76 / 0.50, 32x32
 *   13.0 / 1.47 / 0.41, 64x64 12.5 / 1.42 / 0.39; timed under load, min of 4x50 calls
 *   interleaved: 4x32 3.71 ms, 32x32 3.31, 64x64 3.09 at 1 thread, 1.88 / 1.73 / 1.77 at 2).
 *   32x32 keeps 16 tiles for the threads at 128x128. Cut along K (32x32x8) the fused loop
 *   misses L1 half as often (0.79) but runs twice the instructions (26.0): 2-3x slower.
 * - versioned (in-place arrays versioned per tile): wider tiles cut the halo and the band
 *   committed through shadows; inPlaceVersions.ts widens this to a multiple of the band
 *   (the dycore 64x64x16 instead of 36x64x16: cachegrind AVX2 at 134x134x80 101.0 -> 97.3
 *   instructions and 2.75 -> 2.62 LL misses a point; del-n stays 32x64x16).
 * - rolledVersions (versioned, one loop whose nests fuse along I, with streamVersions and
 *   rollVersions: versions and zero-filled temporaries keep a few rows whatever the tile):
 *   whole rows along I, 64 columns along J, so only J cuts over-compute and commit through
 *   shadows (cachegrind AVX2, 134x134x80, 1 thread, a call: del-n 24.8M instructions, 2.53M D1
 *   and 0.30M 1 MB LL misses against 28.0M / 3.06M / 0.43M for the default 32x32x16; the
 *   dycore 129.7M / 10.69M / 1.57M against 128.2M / 11.06M / 4.03M; 64x128 left the dycore's
 *   rows of 136 columns past L2: 4.36M LL misses).
 * - halo (nests grow but run one after another: horizontal regions, fuseNests off): whole
 *   temporaries per tile must stay in L2, which 32x32 did not (hdiff unfused, 1.72 against
 *   0.40 L2 misses a point), so 4x32.
 * - pointwise: nothing grows; 4x32 as before.
 */
export const LAUNCH_TILES: Readonly<Record<LaunchTileKind, TileShape>> = {
  sweep: [4, 32],
  fusedHalo: [32, 32],
  versioned: [32, 32],
  rolledVersions: [128, 64],
  halo: [4, 32],
  pointwise: [4, 32],
};

/** The schedule options the kind depends on (the entry's codegen options). */
export interface LaunchTileSchedule {
  fuseNests?: boolean;
  loopOrder?: string;
  streamVersions?: boolean;
  rollVersions?: boolean;
}

/** What the tiling pass found out about the launch. */
export interface LaunchTileFacts {
  /** Some array it updates in place is versioned per tile. */
  versioned: boolean;
  /** Some nest over-computes a halo for the nests after it. */
  grows: boolean;
}

/**
 * The kind of a tiled launch. Fused follows codegen's rule (cpuLoops.fusedOuterAxis): fuseNests
 * on, K innermost, every loop PARALLEL, and each loop whose nests grow fusable (no regions,
 * debug checks, `while` loops or variable K offsets: nestFusion.fusionDelays).
 */
export function launchTileKind(l: Launch, facts: LaunchTileFacts, schedule: LaunchTileSchedule): LaunchTileKind {
  if (l.loops.some((v) => v.order !== 'PARALLEL')) return 'sweep';
  const order = schedule.loopOrder ?? 'IJK';
  // (the rule of streamedVersions.ts: one loop fused along I, K innermost)
  const rolled = schedule.fuseNests && schedule.streamVersions && schedule.rollVersions && order === 'IJK' && l.loops.length === 1 && fusionDelays(l.loops[0], 0) !== undefined;
  if (facts.versioned) return rolled ? 'rolledVersions' : 'versioned';
  if (!facts.grows) return 'pointwise';
  if (!schedule.fuseNests || !order.endsWith('K')) return 'halo';
  const outer = order[0] === 'I' ? 0 : 1;
  const fused = l.loops.every((v) => !v.body.some((h) => h.grow) || fusionDelays(v, outer) !== undefined);
  return fused ? 'fusedHalo' : 'halo';
}
