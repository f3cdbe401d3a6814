import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { tapStage } from '../../core/stagePlugin.js';
import { expandProgram } from './expandProgram.js';

/** library expansion: every stencil node becomes loop nests (see expandStencil.ts). */
export class LibraryExpansionPlugin implements OrchPlugin {
  readonly name = 'orch:libraryExpansion';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'libraryExpansion', this.name, (build) => {
      const tile = (compiler.config.passes.tiling && (build.codegen ?? compiler.config.codegen).tile) || false;
      build.program = expandProgram(build.program, { tile });
      build.provide('expanded', { tile });
    });
  }
}
