import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { tapStage } from '../../core/stagePlugin.js';
import { splitRegions } from './splitRegions.js';

/** splittable region expansion: edge and corner regions get loops of their own (see splitRegions.ts). */
export class RegionExpansionPlugin implements OrchPlugin {
  readonly name = 'orch:regionExpansion';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'regionExpansion', this.name, (build) => {
      if (compiler.config.passes.regionExpansion) build.program = splitRegions(build.program);
    });
  }
}
