import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { requireValidIR, tapStage } from '../../core/stagePlugin.js';

/**
 * splittable region expansion. Horizontal regions are currently executed as masks inside
 * the full loop nest; this stage verifies the IR and passes it on unchanged.
 */
export class RegionExpansionPlugin implements OrchPlugin {
  readonly name = 'orch:regionExpansion';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'regionExpansion', this.name, (build) => requireValidIR(build, 'region expansion'));
  }
}
