import type { Backend } from '../../core/config/Backend.js';
import { compileSharedLibrary, compilerIdentity } from '../../core/toolchain/gxx.js';
import { cpuScheduleKnobs } from '../codegen/cpuScheduleKnobs.js';
import { generateCpp } from '../codegen/generateCpp.js';

/** CPU: one C++17/OpenMP source compiled by g++; arrays in host memory, temporaries in the handle's arenas, launches tile by tile. */
export const cpuBackend: Backend = {
  name: 'cpu',
  storage: 'host',
  arenas: true,
  tiles: true,
  scheduleKnobs: cpuScheduleKnobs,
  toolchainIdentity: (cxx) => compilerIdentity(cxx),
  generate(program, options) {
    return { ...generateCpp(program, { ...options }), extraFiles: [] };
  },
  compile: (r) =>
    compileSharedLibrary({ compiler: r.cxx, flags: r.flags, libs: r.libs, launcher: r.launcher, timeoutS: r.timeoutS, source: r.sources[0], output: r.output, cwd: r.cwd, includeDirs: r.includeDirs }),
};
