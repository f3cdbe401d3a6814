import type { Preset } from '../core/config/types.js';
import cpu from './cpu.js';

/** The portable preset tuned for the build machine's own instruction set. */
const cpuNative: Preset = {
  ...cpu,
  name: 'cpu-native',
  description: 'CPU tuned for this machine: g++ -O3 -march=native with OpenMP',
  compiler: { ...cpu.compiler, flags: [...cpu.compiler.flags, '-march=native'] },
};

export default cpuNative;
