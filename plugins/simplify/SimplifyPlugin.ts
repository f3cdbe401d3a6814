import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { requireValidIR, tapSimplify } from '../../core/stagePlugin.js';

/**
 * simplify (runs twice: before region expansion and after library expansion).
 * Nothing is rewritten yet: the stage checks that the IR verifies and passes it on.
 * Constant propagation, dead code elimination and loop fusion are the next steps here.
 */
export class SimplifyPlugin implements OrchPlugin {
  readonly name = 'orch:simplify';
  apply(compiler: Compiler): void {
    tapSimplify(compiler, this.name, (build, phase) => requireValidIR(build, `simplify ${phase}`));
  }
}
