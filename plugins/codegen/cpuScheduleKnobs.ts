import type { KnobContext, ScheduleKnob } from '../../core/config/ScheduleKnob.js';

/**
 * Every schedule option of the CPU code generation that `orch tune` searches: the one list
 * of them. A new schedule (a per-launch choice for FORWARD/BACKWARD sweeps, in-place
 * tiling ...) joins the search with a line here: its codegen option and the values worth
 * trying. Loop orders keep K innermost: fields are C-ordered (I, J, K), so the others
 * stride every access and are never worth a build.
 */

/**
 * Tile shapes around the default 4x32 (long along J, the contiguous rows), and some cut along
 * K: a full K cut runs loops of a known trip count, and wider tiles over-compute less halo
 * (hdiff at 64x64x80, callgrind: 4x32 17.4 instructions a point, 8x16x40 11.4, 16x16x16 12.7).
 * 16x32x8 is for launches with versions per tile (the dycore's substep): wider tiles cut the
 * halo and the band committed through shadows, 8 levels keep them in L2 (cachegrind, cpu
 * preset, 134x134x80, 1 MB LL: LL misses 4.84M -> 3.34M a call, instructions 283M -> 329M,
 * against the 12x32x16 the default 4x32 widens to).
 * Tall tiles (32x32) pay off with fuseNests, whose temporaries keep a few rows whatever the tile.
 * 32x64 and 64x64 are for launches with versions per tile and wide reaches (del-n, the dycore,
 * their iterations fused by unrollLoops): fewer tiles over-compute less halo and commit less
 * band, and their arrays stay in L3 anyway (-march=native, 128x128x80, 1 thread, under load:
 * del-n fused 32x64x16 4.0 ms, 64x64x16 3.1-3.5 ms; unfused 16x32x16 6.3-8.0 ms, 64x64x16 3.5 ms).
 * 64x128x16 is for fused nests whose versions and zero-filled temporaries keep a few rows
 * (rollVersions): del-n, cachegrind AVX2 at 134x134x80, 24.4M instructions and 0.30M 1 MB LL
 * misses a call against 28.0M and 0.43M for its 'auto' 32x32x16.
 */
const TILES: readonly ([number, number] | [number, number, number])[] = [
  [2, 32], [4, 16], [4, 32], [4, 64], [8, 16], [8, 32], [8, 64], [16, 16], [16, 32], [2, 64],
  [32, 32], [32, 64], [64, 64], [64, 128, 16], [4, 32, 16], [8, 32, 16], [8, 16, 32], [8, 16, 40], [16, 16, 16], [8, 32, 20], [16, 32, 20], [16, 32, 8],
];

/**
 * Tiles no larger than the domain needs: a tile twice the domain runs like one that just covers it.
 * 'auto' (a tile per launch, from what the launch is: plugins/simplify/launchTiles.ts) first,
 * so a short budget reaches it.
 */
function tilesFor(ctx: KnobContext): unknown[] {
  const [nx, ny, nz] = ctx.domain;
  const fits = TILES.filter((t) => t[0] < 2 * nx && t[1] < 2 * ny && (t[2] === undefined || t[2] < nz));
  return ['auto', ...fits, false];
}

export const cpuScheduleKnobs: readonly ScheduleKnob[] = [
  // knobs are tried in this order, each from the best found so far:
  // unrollLoops first: one build, and the fused launch is what the tile sizes are then tried for
  { option: 'unrollLoops', describe: 'short compile-time program loops of launches unrolled, their launches fused into one (true) or run one per iteration', values: () => [true, false] },
  // fuseNests before the tiles: fused nests keep a few rows of each temporary, which changes
  // which tile is best (tall ones)
  { option: 'fuseNests', describe: 'in a tile, the nests of a PARALLEL loop run fused column by column (true) or one after another', values: () => [true, false] },
  // nests with horizontal regions fused too (regionVersions.ts): where no nest has regions,
  // the default's code, a quick build
  { option: 'fuseRegions', describe: 'with fuseNests, nests with horizontal regions fuse too, their K loops copied per region test (true) or they run one after another', values: () => [true, false] },
  // g++ prefers 512-bit vectors with AVX-512: short K loops then spend much of their time in
  // narrower tail copies (vectorWidth.ts)
  { option: 'vectorWidth', describe: 'the vector width (bits) g++ prefers where it compiles for AVX-512, or false for its own choice', values: () => [256, false] },
  // tile-local columns on whole lines (tileScratch.ts): ppm at 12x12x79, AVX-512, 1 thread,
  // timed under load: 31 -> 21 us a call (79 levels: every vector of a temporary straddled two lines)
  // temporaries read sideways recomputed in their readers (plugins/simplify/recomputeTemporaries.ts):
  // ppm at 12x12x79, AVX-512, hand-written: 19 -> 13.5 us a call; where no nest qualifies, the same code
  { option: 'recomputeTemporaries', describe: 'nests that only write temporaries other nests read at horizontal offsets are recomputed in those readers (true) or stored and loaded', values: () => [true, false] },
  { option: 'alignTileColumns', describe: 'the K columns of tile-local arrays start on a 64-byte line (true) or follow each other', values: () => [true, false] },
  // then the schedules of fused nests and of in-place versions (dycore, del-n): each is one build,
  // where they change nothing the same code (not timed again), and they change which tile is best
  { option: 'streamVersions', describe: 'versions of in-place arrays filled and committed row by row inside fused nests (true) or around the whole tile', values: () => [false, true] },
  { option: 'rollVersions', describe: 'streamed versions and zero-filled temporaries of fused nests keep only the rows in flight (true) or the whole tile', values: () => [false, true] },
  { option: 'splitRegionTiles', describe: 'tiles where the nests with regions run nothing run the other nests fused (true) or every nest unfused', values: () => [false, true] },
  // the newest column of each field prefetched a few columns ahead: one build each
  { option: 'prefetchColumns', describe: 'fused nests prefetch the K column this many columns ahead of the newest each field is read at (or false)', values: () => [false, 2, 4] },
  // outputs of fused nests streamed past the caches: one build; where nothing streams, the default's code.
  // After the prefetches, which it pays with (hdiff, AVX-512, under load: alone no faster, with them 10-15% faster)
  { option: 'streamOutputs', describe: 'outputs fused nests write whole and never read, copied out a column at a time by streaming stores (true) or stored in place', values: () => [false, true] },
  { option: 'jamLevels', describe: 'fused nests share one K loop where they can (true), only in loops of at most this many nests, or run one each (false)', values: () => [true, false, 8] },
  { option: 'tile', describe: "points per tile along I, J (and K), false for untiled launches, or 'auto' for a tile per launch from its kind", values: tilesFor },
  // right after the tiles, so a budget of a few minutes reaches it: the Thomas solver's schedule
  // (2.3 against 3.7 ns a point for the default, 128x128x80, 1 thread, timed under load); where
  // no launch sweeps it generates the default's code, so it costs three quick builds
  {
    option: 'sweepBlock',
    describe: 'tiles of FORWARD/BACKWARD launches as staged blocks of this many columns along J, next block prefetched, outputs streamed (or false)',
    values: (ctx) => [...(ctx.base.sweepBlock ? [false] : []), ...[16, 32, 64].filter((n) => n < 2 * ctx.domain[1])],
  },
  { option: 'loopOrder', describe: 'loop order, outermost first (K innermost: the contiguous axis)', values: () => ['IJK', 'JIK'] },
  { option: 'balancedTiles', describe: 'tiles share the domain evenly (true) or the last one along I and J takes the remainder', values: () => [false, true] },
  { option: 'versionedTileK', describe: 'levels per tile of launches with versions of in-place arrays (false: whole columns)', values: () => [16, 8, false] },
  { option: 'stageSweeps', describe: 'tiles of FORWARD/BACKWARD launches copy their fields into [K][I][J] buffers (true) or read them in place', values: () => [true, false] },
  // last: strips narrow the rows fused nests read back (the dycore: a row of its 12 nests spans
  // the tile's 72 columns; with whole-column tiles, versionedTileK false, 1 MB L2 misses 10.3M ->
  // 4.6M a call), but no layout measured faster with them (thread CPU time, AVX-512, 1 thread,
  // under load: the default 22.0 ms, 8-column strips 26.6, whole columns 26.5 and 29.4 with strips)
  { option: 'fusedStrip', describe: 'fused nests walk a tile in strips of this many columns, every row of one strip before the next (or false: one strip)', values: () => [false, 8, 16] },
];
