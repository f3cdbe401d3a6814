import type { Compiler } from '../../core/Compiler.js';
import type { CodegenOptions, OrchPlugin, PassName } from '../../core/config/types.js';
import type { Program } from '../../core/ir/types.js';
import type { StageName } from '../../core/pipeline.js';
import { tapStage } from '../../core/stagePlugin.js';
import { constantFolding } from './constantFolding.js';
import { copyPropagation } from './copyPropagation.js';
import { deadCode } from './deadCode.js';
import { fusion } from './fusion.js';
import { launchLoopUnroll } from './launchLoopUnroll.js';
import { mergeBlocks } from './mergeBlocks.js';
import { recomputeTemporaries } from './recomputeTemporaries.js';
import { scalarization } from './scalarization.js';
import { sweepFusion } from './sweepFusion.js';
import { planes } from './planes.js';
import { tiling } from './tiling.js';

/** One simplify pass: its own tap (`orch:<name>`) on a simplify stage, at tap stage `order`. */
interface SimplifyPass {
  name: PassName;
  stage: Extract<StageName, 'simplify1' | 'simplify2'>;
  order: number;
  /** `codegen`: the entry's codegen options (a schedule orch tune chose included) */
  run: (p: Program, codegen: CodegenOptions) => Program;
  /** Runs only for the entry's codegen options this accepts (a schedule choice `orch tune` searches). */
  when?: (codegen: CodegenOptions) => boolean;
}

/** The simplify passes; tap stage numbers leave gaps so custom passes can go between. */
export const SIMPLIFY_PASSES: SimplifyPass[] = [
  // before region and library expansion: fold compile-time values, drop what is dead
  { name: 'constantFolding', stage: 'simplify1', order: 0, run: constantFolding },
  { name: 'deadCode', stage: 'simplify1', order: 10, run: deadCode },
  // after library expansion: the loop-nest optimizations
  { name: 'copyPropagation', stage: 'simplify2', order: 0, run: copyPropagation },
  { name: 'deadCode', stage: 'simplify2', order: 10, run: deadCode },
  // a short loop of launches into straight-line launches, so fusion merges its iterations
  { name: 'loopUnroll', stage: 'simplify2', order: 12, run: launchLoopUnroll, when: (codegen) => codegen.unrollLoops === true },
  // PARALLEL loops into the sweep after them, before fusion merges the nests of each level
  { name: 'sweepFusion', stage: 'simplify2', order: 15, run: sweepFusion },
  { name: 'fusion', stage: 'simplify2', order: 20, run: fusion },
  // (codegen.recomputeTemporaries) nests whose temporaries others read sideways, copied into those readers
  { name: 'recomputeTemporaries', stage: 'simplify2', order: 25, run: recomputeTemporaries, when: (codegen) => codegen.recomputeTemporaries === true },
  { name: 'scalarization', stage: 'simplify2', order: 30, run: scalarization },
  { name: 'constantFolding', stage: 'simplify2', order: 40, run: constantFolding },
  { name: 'mergeBlocks', stage: 'simplify2', order: 50, run: mergeBlocks },
  { name: 'deadCode', stage: 'simplify2', order: 60, run: deadCode },
  // it decides which transients live per tile, so no pass may drop one after it
  { name: 'tiling', stage: 'simplify2', order: 70, run: (p, codegen) => tiling(p, { versionK: codegen.versionedTileK, ...(codegen.tile === 'auto' ? { perLaunch: codegen } : {}) }) },
  // after tiling: what a tile keeps in cache needs no plane
  { name: 'planes', stage: 'simplify2', order: 80, run: planes },
];

/** The simplify passes, each its own tap; `passes: { name: false }` leaves a pass untapped. */
export class SimplifyPlugin implements OrchPlugin {
  readonly name = 'orch:simplify';
  apply(compiler: Compiler): void {
    for (const pass of SIMPLIFY_PASSES) {
      if (!compiler.config.passes[pass.name]) continue;
      tapStage(
        compiler,
        pass.stage,
        `orch:${pass.name}`,
        (build) => {
          const codegen = build.codegen ?? compiler.config.codegen;
          if (pass.when && !pass.when(codegen)) return;
          build.program = pass.run(build.program, codegen);
        },
        pass.order,
      );
    }
  }
}

/** The simplify table of docs/plugins.md. */
export function simplifyTableMarkdown(): string {
  const rows = SIMPLIFY_PASSES.map((p) => `| \`${p.stage}\` | ${p.order} | \`orch:${p.name}\` |`);
  return ['| stage hook | tap stage | tap |', '| --- | --- | --- |', ...rows].join('\n');
}
