import type { Compiler } from '../../core/Compiler.js';
import { fail } from '../../core/diagnostics.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { requireValidIR, tapStage } from '../../core/stagePlugin.js';
import { insertChecks } from './insertChecks.js';

/** debug insertion: checkers after writes when the debug preset or `--debug` turns them on. */
export class DebugInsertionPlugin implements OrchPlugin {
  readonly name = 'orch:debugInsertion';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'debugInsertion', this.name, (build) => {
      requireValidIR(build, 'debug insertion');
      const opts = compiler.config.debug;
      if (!build.program || !opts.enabled) return;
      if (compiler.config.preset.target === 'cuda') {
        fail('E_UNSUPPORTED', 'debug checkers are not available for CUDA builds yet', { hint: 'debug on the CPU (--preset debug, or --debug with a CPU preset): the checkers report the same program, stencil, line and i, j, k' });
      }
      build.program = insertChecks(build.program, opts);
    });
  }
}
