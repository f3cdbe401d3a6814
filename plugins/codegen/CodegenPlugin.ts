import path from 'node:path';
import { writeCacheFile } from '../../core/cache/BuildCache.js';
import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { tapStage } from '../../core/stagePlugin.js';
import { generateCpp } from './generateCpp.js';
import { DEFAULT_BLOCK, DEFAULT_COLUMN_BLOCK, generateCuda } from './generateCuda.js';
import { generatePythonBinding } from './pythonBinding.js';

/**
 * codegen, per program, by the preset's target: a C++17/OpenMP source and header (cpu),
 * or a host .cpp, a kernels .cu, their shared launcher declarations and the header
 * (cuda), and a Python binding for either, written to the staging folder.
 */
export class CodegenPlugin implements OrchPlugin {
  readonly name = 'orch:codegen';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'codegen', this.name, (build, compilation) => {
      if (!build.program) return;
      const options = compiler.config.codegen;
      build.staging = compilation.cache.staging(build.moduleRel, build.entry);
      if (compiler.config.preset.target === 'cuda') {
        const out = generateCuda(build.program, {
          ...options,
          blockSize: options.blockSize ?? DEFAULT_BLOCK,
          columnBlockSize: options.columnBlockSize ?? DEFAULT_COLUMN_BLOCK,
          syncLaunches: options.syncLaunches ?? false,
        });
        const file = path.join(build.staging, `${out.symbol}.cpp`);
        const kernels = path.join(build.staging, `${out.symbol}.cu`);
        writeCacheFile(file, out.source);
        writeCacheFile(kernels, out.kernels);
        writeCacheFile(path.join(build.staging, `${out.symbol}_kernels.h`), out.launchers);
        writeCacheFile(path.join(build.staging, `${out.symbol}.h`), out.header);
        writeCacheFile(path.join(build.staging, 'binding.py'), generatePythonBinding(out.signature, out.symbol));
        build.cpp = { ...out, file, extraFiles: [kernels, path.join(build.staging, `${out.symbol}_kernels.h`)], binding: 'binding.py' };
        return;
      }
      const out = generateCpp(build.program, { ...options });
      const file = path.join(build.staging, `${out.symbol}.cpp`);
      writeCacheFile(file, out.source);
      writeCacheFile(path.join(build.staging, `${out.symbol}.h`), out.header);
      writeCacheFile(path.join(build.staging, 'binding.py'), generatePythonBinding(out.signature, out.symbol));
      build.cpp = { ...out, file, binding: 'binding.py' };
    });
  }
}
