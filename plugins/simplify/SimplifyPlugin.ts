import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin, PassName } from '../../core/config/types.js';
import type { Program } from '../../core/ir/types.js';
import { requireValidIR, tapSimplify } from '../../core/stagePlugin.js';
import { constantFolding } from './constantFolding.js';
import { copyPropagation } from './copyPropagation.js';
import { deadCode } from './deadCode.js';
import { fusion } from './fusion.js';
import { mergeBlocks } from './mergeBlocks.js';
import { scalarization } from './scalarization.js';
import { planes } from './planes.js';
import { tiling } from './tiling.js';

type Pass = [PassName, (p: Program) => Program];

/** Before region and library expansion: fold compile-time values, drop what is dead. */
export const SIMPLIFY_1: Pass[] = [
  ['constantFolding', constantFolding],
  ['deadCode', deadCode],
];

/** After library expansion: the loop-nest optimizations. */
export const SIMPLIFY_2: Pass[] = [
  ['copyPropagation', copyPropagation],
  ['deadCode', deadCode],
  ['fusion', fusion],
  ['scalarization', scalarization],
  ['constantFolding', constantFolding],
  ['mergeBlocks', mergeBlocks],
  ['deadCode', deadCode],
  // it decides which transients live per tile, so no pass may drop one after it
  ['tiling', tiling],
  // after tiling: what a tile keeps in cache needs no plane
  ['planes', planes],
];

/** simplify (runs twice); each pass can be turned off with `passes: { name: false }`. */
export class SimplifyPlugin implements OrchPlugin {
  readonly name = 'orch:simplify';
  apply(compiler: Compiler): void {
    tapSimplify(compiler, this.name, (build, phase) => {
      requireValidIR(build, `simplify ${phase}`);
      if (!build.program) return;
      for (const [name, pass] of phase === 1 ? SIMPLIFY_1 : SIMPLIFY_2) {
        if (compiler.config.passes[name]) build.program = pass(build.program);
      }
    });
  }
}
