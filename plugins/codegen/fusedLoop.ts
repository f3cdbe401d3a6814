import { levelsJam, type Delay } from '../../core/ir/nestFusion.js';
import type { VLoop } from '../../core/ir/types.js';
import type { Codegen, PointContext } from './Codegen.js';
import type { ColumnPrefetch } from './columnPrefetch.js';
import { fusedNests, type ColumnHooks } from './fusedNests.js';
import type { StreamedOutputs } from './streamedOutputs.js';
import type { RowHooks } from './streamedVersions.js';

/**
 * A PARALLEL loop's nests fused in a tile (fusedNests.ts; in strips of `strip` columns with
 * codegen.fusedStrip): in a tile cut along K (`tk` levels), full tiles run a compile-time
 * trip count (see CpuLoops.parallelNest); each column
 * prefetches what the loop reads next (codegen.prefetchColumns) and copies out the outputs it
 * streams (codegen.streamOutputs), in a copy of the loop chosen per call.
 */
export function fusedLoop(cg: Codegen, v: VLoop, delays: Delay[], ctx: PointContext, tk: number | undefined, rows: RowHooks | undefined, outputs: StreamedOutputs | undefined, prefetch: ColumnPrefetch | undefined, strip?: number): void {
  const w = cg.w;
  // (codegen.jamLevels false, or fewer nests than this loop's: each nest its own K loop, fewer pointers live at once)
  const jl = cg.opts.jamLevels;
  const jam = jl !== false && (typeof jl !== 'number' || v.body.length <= jl) && levelsJam(v);
  const columns: ColumnHooks = { before: prefetch?.column(v.body, delays, ctx), after: outputs && ((n, at) => outputs.afterColumn(v, n, ctx, at)) };
  const loops = () => {
    if (tk) {
      w.open(`if (khi - klo == ${tk}) {`);
      fusedNests(cg, v.body, delays, cg.order, ctx, `for (int64_t k = klo; k < klo + ${tk}; ++k) {`, jam, rows, strip, columns);
      w.reopen('} else {');
    }
    fusedNests(cg, v.body, delays, cg.order, ctx, 'for (int64_t k = klo; k < khi; ++k) {', jam, rows, strip, columns);
    if (tk) w.close();
  };
  if (outputs) outputs.fusedLoop(v, ctx, loops);
  else loops();
}
