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
    tapStage(compiler, 'codegen', this.name, (build, compilation) => {
      if (!build.program) return;
      build.staging = compilation.cache.staging(build.moduleRel, build.entry);
      const out = compiler.config.backend.generate(build.program, compiler.config.codegen);
      const file = path.join(build.staging, `${out.symbol}.cpp`);
      writeCacheFile(file, out.source);
      const extra = out.extraFiles.map((f) => ({ ...f, path: path.join(build.staging!, f.name) }));
      for (const f of extra) writeCacheFile(f.path, f.text);
      writeCacheFile(path.join(build.staging, `${out.symbol}.h`), out.header);
      writeCacheFile(path.join(build.staging, 'binding.py'), generatePythonBinding(out.signature, out.symbol));
      build.cpp = {
        source: out.source,
        header: out.header,
        symbol: out.symbol,
        signature: out.signature,
        file,
        ...(extra.length ? { extraFiles: extra.map((f) => f.path), compiledFiles: extra.filter((f) => f.compiled).map((f) => f.path) } : {}),
        binding: 'binding.py',
      };
    });
  }
}
