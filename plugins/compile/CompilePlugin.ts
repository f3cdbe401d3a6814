import path from 'node:path';
import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { NATIVE_DIR } from '../../core/cache/hashing.js';
import { tapStage } from '../../core/stagePlugin.js';
import { compileSharedLibrary } from './gxx.js';

/** compile: g++ through execa into a shared library; compiler messages become diagnostics. */
export class CompilePlugin implements OrchPlugin {
  readonly name = 'orch:compile';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'compile', this.name, async (build) => {
      if (!build.cpp?.file || !build.staging) return;
      const output = path.join(build.staging, `lib${build.cpp.symbol}.so`);
      const r = await compileSharedLibrary({
        compiler: compiler.config.compiler.cxx,
        flags: compiler.config.compiler.flags,
        source: build.cpp.file,
        output,
        cwd: build.staging,
        includeDirs: [NATIVE_DIR],
      });
      build.library = output;
      build.command = r.command;
      build.warnings.push(...r.warnings);
    });
  }
}
