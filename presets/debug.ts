import type { Preset } from '../core/config/types.js';
import cpu from './cpu.js';

/** Unoptimized build with debug info, for gdb and for chasing numerical problems. */
const debug: Preset = {
  ...cpu,
  name: 'debug',
  description: 'CPU debug build: g++ -O0 -g, no OpenMP, debug checkers on',
  compiler: { cxx: 'g++', flags: ['-O0', '-g', '-std=c++17', '-fPIC', '-shared'] },
  codegen: { ...cpu.codegen, openmp: false },
  debug: { enabled: true },
};

export default debug;
