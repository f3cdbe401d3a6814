import type { Launch, Tiling } from '../../core/ir/types.js';
import type { Codegen, CppOptions } from './Codegen.js';
import { SweepStaging } from './sweepStaging.js';
import { blockColumns, stagesSweeps } from './sweepBlocks.js';

/**
 * What a tile of a FORWARD/BACKWARD launch is run as: staged, reshaped, or a block of a row.
 * `opts` are the sweep's options (without codegen.sweepBlock on a launch's fallback path).
 */

/**
 * A tile with nothing tile-local or versioned exists only for its sweep to stage its fields
 * (plugins/simplify/sweepTiling.ts): without staging it runs untiled, column by column.
 */
export function sweepTileStages(cg: Codegen, opts: CppOptions, s: Launch, tile: Tiling): boolean {
  if (tile.local.length || tile.versioned?.length) return true;
  return stagesSweeps(opts) && s.loops.some((v) => v.order !== 'PARALLEL') && new SweepStaging(cg, s, tile).staged.length > 0;
}

/**
 * A tile of a FORWARD/BACKWARD launch that staged keeps its area but takes its columns along
 * J as far as the domain allows: a level of its staged arrays is then a few long contiguous
 * rows (loop overhead per row, not per point). Only where the shape changes no number: no
 * versions, no growth.
 */
export function reshapedTile(opts: CppOptions, s: Launch, tile: Tiling): boolean {
  return (
    s.loops.some((v) => v.order !== 'PARALLEL') &&
    stagesSweeps(opts) &&
    !tile.versioned?.length &&
    !tile.k &&
    s.loops.every((v) => v.body.every((h) => !(h.grow ?? []).some((g) => g !== 0)))
  );
}

/** A tile run as staged blocks of a row's columns (codegen.sweepBlock, sweepBlocks.ts). */
export function blockTile(cg: Codegen, opts: CppOptions, s: Launch, tile: Tiling): boolean {
  return blockColumns(opts) !== undefined && sweepTileStages(cg, opts, s, tile) && reshapedTile(opts, s, tile);
}
