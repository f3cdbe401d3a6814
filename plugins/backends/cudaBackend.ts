import type { Backend } from '../../core/config/Backend.js';
import { resolveCudaArch } from '../../core/config/cudaArch.js';
import { compileCudaLibrary, nvccIdentity } from '../../core/toolchain/nvcc.js';
import { DEFAULT_BLOCK, DEFAULT_COLUMN_BLOCK, generateCuda } from '../codegen/generateCuda.js';

/**
 * CUDA: a host .cpp and a kernels .cu compiled and linked by nvcc for the GPU generation
 * resolved at build time; arrays in device memory, temporaries and transients from the
 * handle's stream-ordered pool, tiled launches as whole-range kernels.
 */
export const cudaBackend: Backend = {
  name: 'cuda',
  storage: 'device',
  arenas: false,
  // the handle's stream-ordered pool keeps its memory between calls
  memoryNotes: {
    arg: 'device memory owned by the caller',
    temporary: 'device memory per call of run, from the stream-ordered pool (kept between calls)',
    transient: 'device memory per stencil launch, from the stream-ordered pool (kept between calls)',
  },
  tiles: false,
  toolchainIdentity: (nvcc, flags) => nvccIdentity(nvcc, flags),
  resolveArch: (setting) => resolveCudaArch(setting).then((r) => r.arch),
  generate(program, options) {
    const out = generateCuda(program, {
      ...options,
      blockSize: options.blockSize ?? DEFAULT_BLOCK,
      columnBlockSize: options.columnBlockSize ?? DEFAULT_COLUMN_BLOCK,
      syncLaunches: options.syncLaunches ?? false,
    });
    return {
      symbol: out.symbol,
      signature: out.signature,
      source: out.source,
      header: out.header,
      extraFiles: [
        { name: `${out.symbol}.cu`, text: out.kernels, compiled: true },
        { name: `${out.symbol}_kernels.h`, text: out.launchers, compiled: false },
      ],
    };
  },
  compile(r) {
    // the architecture the cache key was computed with (Compiler.entryInputs)
    if (!r.arch) throw new Error(`CUDA build of ${r.output} has no resolved GPU architecture in its inputs`);
    // nvcc takes the libraries among its flags
    return compileCudaLibrary({ nvcc: r.cxx, flags: [...r.flags, ...r.libs], launcher: r.launcher, timeoutS: r.timeoutS, arch: r.arch, sources: r.sources, output: r.output, cwd: r.cwd, includeDirs: r.includeDirs });
  },
};
