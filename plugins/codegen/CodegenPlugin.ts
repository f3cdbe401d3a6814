import path from 'node:path';
import { writeCacheFile } from '../../core/cache/BuildCache.js';
import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { tapStage } from '../../core/stagePlugin.js';
import { generateCpp } from './cpp.js';

/** codegen: one C++17/OpenMP source and header per program, written to the staging folder. */
export class CodegenPlugin implements OrchPlugin {
  readonly name = 'orch:codegen';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'codegen', this.name, (build, compilation) => {
      if (!build.program) return;
      const out = generateCpp(build.program, { ...compiler.config.codegen });
      build.staging = compilation.cache.staging(build.moduleRel, build.entry);
      const file = path.join(build.staging, `${out.symbol}.cpp`);
      writeCacheFile(file, out.source);
      writeCacheFile(path.join(build.staging, `${out.symbol}.h`), out.header);
      build.cpp = { ...out, file };
    });
  }
}
