import type { Preset } from '../core/config/types.js';
import cpu from './cpu.js';

/**
 * The portable preset tuned for the build machine's own instruction set. FMA contraction
 * is off: with -march=native g++ fuses a * b + c into one rounding where the machine has
 * FMA (C++ defaults to -ffp-contract=fast), and the results differ from the interpreter's
 * in the last bit (hdiff: 308 points of 64x64x80); the CUDA presets pass --fmad=false for
 * the same reason.
 */
const cpuNative: Preset = {
  ...cpu,
  name: 'cpu-native',
  description: 'CPU tuned for this machine: g++ -O3 -march=native with OpenMP',
  compiler: { ...cpu.compiler, flags: [...cpu.compiler.flags, '-march=native', '-ffp-contract=off'] },
};

export default cpuNative;
