import path from 'node:path';
import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { NATIVE_DIR } from '../../core/cache/hashing.js';
import { tapStage } from '../../core/stagePlugin.js';
import { mpiToolchain } from '../../core/toolchain/mpi.js';
import { checkLibraryLoads } from '../../core/toolchain/libraryCheck.js';

/**
 * compile: the preset's backend compiles the generated sources into a shared library
 * (g++ or nvcc through execa); compiler messages become diagnostics.
 */
export class CompilePlugin implements OrchPlugin {
  readonly name = 'orch:compile';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'compile', this.name, async (build) => {
      if (!build.cpp?.file || !build.staging) return;
      const output = path.join(build.staging, `lib${build.cpp.symbol}.so`);
      const { cxx, launcher, mpi } = compiler.config.compiler;
      let flags = compiler.config.compiler.flags;
      let libs: string[] = [];
      if (mpi) {
        const m = await mpiToolchain();
        flags = [...flags, ...m.compileFlags];
        // libmpi only: the halo exchange uses MPI's C API
        libs = m.linkFlags.filter((f) => f !== '-lmpi_cxx');
      }
      const r = await compiler.config.backend.compile({
        cxx,
        flags,
        libs,
        launcher,
        timeoutS: compiler.config.compiler.timeoutS,
        sources: [build.cpp.file, ...(build.cpp.compiledFiles ?? [])],
        output,
        cwd: build.staging,
        includeDirs: [NATIVE_DIR],
        // the architecture the cache key was computed with (Compiler.entryInputs)
        arch: build.inputs.compiler.cudaArch,
      });
      await checkLibraryLoads(output, build.cpp.symbol, cxx);
      build.library = output;
      build.command = r.command;
      build.warnings.push(...r.warnings);
    });
  }
}
