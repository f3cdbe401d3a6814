import path from 'node:path';
import { writeCacheFile } from '../../core/cache/BuildCache.js';
import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { tapStage } from '../../core/stagePlugin.js';
import { generatePythonBinding } from './pythonBinding.js';

/**
 * codegen, per program, by the preset's backend: its sources (cpu: a C++17/OpenMP source;
 * cuda: a host .cpp, a kernels .cu and their shared launcher declarations), the public
 * header, and a Python binding, written to the staging folder.
 */
export class CodegenPlugin implements OrchPlugin {
  readonly name = 'orch:codegen';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'codegen', this.name, (build) => {
      // codegen of stencil nodes is meaningless: library expansion must have run
      build.need('expanded', 'codegen');
      const out = compiler.config.backend.generate(build.program, build.codegen ?? compiler.config.codegen);
      // the staging folder is made once generation succeeded, so a codegen error leaves none behind
      const staging = build.needCache('codegen').staging();
      const file = path.join(staging, `${out.symbol}.cpp`);
      writeCacheFile(file, out.source);
      const extra = out.extraFiles.map((f) => ({ ...f, path: path.join(staging, f.name) }));
      for (const f of extra) writeCacheFile(f.path, f.text);
      writeCacheFile(path.join(staging, `${out.symbol}.h`), out.header);
      writeCacheFile(path.join(staging, 'binding.py'), generatePythonBinding(out.signature, out.symbol));
      build.provide('generated', {
        staging,
        symbol: out.symbol,
        signature: out.signature,
        file,
        extraFiles: extra.map((f) => f.path),
        compiledFiles: extra.filter((f) => f.compiled).map((f) => f.path),
        binding: 'binding.py',
      });
    });
  }
}
