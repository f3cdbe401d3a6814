import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { tapStage } from '../../core/stagePlugin.js';
import { insertChecks } from './insertChecks.js';

/**
 * debug insertion: checkers after writes when the debug preset or `--debug` turns them on.
 * The checks are target-neutral IR; each backend reports them (CUDA kernels through the
 * device error record, so a failure leaves the device usable).
 */
export class DebugInsertionPlugin implements OrchPlugin {
  readonly name = 'orch:debugInsertion';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'debugInsertion', this.name, (build) => {
      const opts = compiler.config.debug;
      if (!opts.enabled) return;
      build.program = insertChecks(build.program, opts);
    });
  }
}
