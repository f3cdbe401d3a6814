import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { requireValidIR, tapStage } from '../../core/stagePlugin.js';
import { assignPool } from './assignPool.js';

/** pooling: transients and temporaries placed in grow-only arenas (see assignPool.ts). */
export class PoolingPlugin implements OrchPlugin {
  readonly name = 'orch:pooling';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'pooling', this.name, (build) => {
      requireValidIR(build, 'pooling');
      // a backend without arenas (CUDA: the device's stream-ordered pool) allocates them itself
      if (build.program && compiler.config.passes.pooling && compiler.config.backend.arenas) build.program = assignPool(build.program);
    });
  }
}
