import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { requireValidIR, tapStage } from '../../core/stagePlugin.js';

/**
 * pooling. Transients are still allocated per launch by the generated code; this stage
 * verifies the IR and passes it on. The memory report says that nothing is pooled.
 */
export class PoolingPlugin implements OrchPlugin {
  readonly name = 'orch:pooling';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'pooling', this.name, (build) => requireValidIR(build, 'pooling'));
  }
}
