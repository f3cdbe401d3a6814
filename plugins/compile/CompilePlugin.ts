import path from 'node:path';
import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { NATIVE_DIR } from '../../core/cache/hashing.js';
import { tapStage } from '../../core/stagePlugin.js';
import { mpiToolchain } from '../../core/toolchain/mpi.js';
import { compileSharedLibrary } from '../../core/toolchain/gxx.js';
import { compileCudaLibrary } from '../../core/toolchain/nvcc.js';
import { checkLibraryLoads } from '../../core/toolchain/libraryCheck.js';

/**
 * compile: g++ (cpu) or nvcc (cuda) through execa into a shared library; compiler
 * messages become diagnostics.
 */
export class CompilePlugin implements OrchPlugin {
  readonly name = 'orch:compile';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'compile', this.name, async (build) => {
      const generated = build.need('generated', 'compile');
      const output = path.join(generated.staging, `lib${generated.symbol}.so`);
      const { cxx, launcher, mpi } = compiler.config.compiler;
      let flags = compiler.config.compiler.flags;
      let libs: string[] = [];
      if (mpi) {
        const m = await mpiToolchain();
        flags = [...flags, ...m.compileFlags];
        // libmpi only: the halo exchange uses MPI's C API
        libs = m.linkFlags.filter((f) => f !== '-lmpi_cxx');
      }
      const common = { flags, output, cwd: generated.staging, includeDirs: [NATIVE_DIR], launcher, timeoutS: compiler.config.compiler.timeoutS };
      let r;
      if (compiler.config.preset.target === 'cuda') {
        // the architecture the cache key was computed with (Compiler.entryInputs)
        const arch = build.inputs.compiler.cudaArch;
        if (!arch) throw new Error(`CUDA build of ${build.entry} has no resolved GPU architecture in its inputs`);
        const sources = [generated.file, ...generated.extraFiles.filter((f) => f.endsWith('.cu'))];
        r = await compileCudaLibrary({ ...common, flags: [...flags, ...libs], nvcc: cxx, arch, sources });
      } else {
        r = await compileSharedLibrary({ ...common, compiler: cxx, source: generated.file, libs });
      }
      await checkLibraryLoads(output, generated.symbol, cxx);
      build.provide('compiled', { library: output, command: r.command });
      build.warnings.push(...r.warnings);
    });
  }
}
