import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { tapStage } from '../../core/stagePlugin.js';
import { generateCpp } from './cpp.js';
import { generatePythonBinding } from './pythonBinding.js';

/** codegen: one C++17/OpenMP source, header and Python binding per program, written to the staging folder. */
export class CodegenPlugin implements OrchPlugin {
  readonly name = 'orch:codegen';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'codegen', this.name, (build, compilation) => {
      if (!build.program) return;
      const out = generateCpp(build.program, { ...compiler.config.codegen });
      build.staging = compilation.cache.staging(build.moduleRel, build.entry);
      const file = path.join(build.staging, `${out.symbol}.cpp`);
      writeFileSync(file, out.source);
      writeFileSync(path.join(build.staging, `${out.symbol}.h`), out.header);
      writeFileSync(path.join(build.staging, 'binding.py'), generatePythonBinding(out.signature, out.symbol));
      build.cpp = { ...out, file, binding: 'binding.py' };
    });
  }
}
