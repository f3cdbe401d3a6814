import path from 'node:path';
import { writeCacheFile } from '../../core/cache/BuildCache.js';
import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { tapStage } from '../../core/stagePlugin.js';
import { generateCpp } from './cpp.js';
import { DEFAULT_BLOCK, DEFAULT_COLUMN_BLOCK, generateCuda } from './cuda.js';
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
      // codegen of stencil nodes is meaningless: library expansion must have run
      build.need('expanded', 'codegen');
      const options = compiler.config.codegen;
      // the staging folder is made once generation succeeded, so a codegen error leaves none behind
      const staging = () => compilation.cache.staging(build.moduleRel, build.entry);
      if (compiler.config.preset.target === 'cuda') {
        const out = generateCuda(build.program, {
          ...options,
          blockSize: options.blockSize ?? DEFAULT_BLOCK,
          columnBlockSize: options.columnBlockSize ?? DEFAULT_COLUMN_BLOCK,
          syncLaunches: options.syncLaunches ?? false,
        });
        const dir = staging();
        const file = path.join(dir, `${out.symbol}.cpp`);
        const kernels = path.join(dir, `${out.symbol}.cu`);
        writeCacheFile(file, out.source);
        writeCacheFile(kernels, out.kernels);
        writeCacheFile(path.join(dir, `${out.symbol}_kernels.h`), out.launchers);
        writeCacheFile(path.join(dir, `${out.symbol}.h`), out.header);
        writeCacheFile(path.join(dir, 'binding.py'), generatePythonBinding(out.signature, out.symbol));
        build.provide('generated', { staging: dir, symbol: out.symbol, signature: out.signature, file, extraFiles: [kernels, path.join(dir, `${out.symbol}_kernels.h`)], binding: 'binding.py' });
        return;
      }
      const out = generateCpp(build.program, { ...options });
      const dir = staging();
      const file = path.join(dir, `${out.symbol}.cpp`);
      writeCacheFile(file, out.source);
      writeCacheFile(path.join(dir, `${out.symbol}.h`), out.header);
      writeCacheFile(path.join(dir, 'binding.py'), generatePythonBinding(out.signature, out.symbol));
      build.provide('generated', { staging: dir, symbol: out.symbol, signature: out.signature, file, extraFiles: [], binding: 'binding.py' });
    });
  }
}
