import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { requireValidIR, tapStage } from '../../core/stagePlugin.js';

/** debug insertion. No checkers are inserted yet; the stage verifies the IR and passes it on. */
export class DebugInsertionPlugin implements OrchPlugin {
  readonly name = 'orch:debugInsertion';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'debugInsertion', this.name, (build) => requireValidIR(build, 'debug insertion'));
  }
}
