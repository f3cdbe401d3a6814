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
  // On top of the portable defaults, each timed faster with AVX-512 in a quiet A/B (134x134x80
  // arrays, alternating `orch run --repeat 60`, medians of 5 rounds, ms, 1 / 2 threads), all
  // four together against the defaults before them:
  // - recomputeTemporaries (ppm's al/bl/br recomputed where read, one nest) with
  //   alignTileColumns (K columns of tile arrays on 64-byte lines): ppm 5.78 -> 3.71 / 3.19 ->
  //   1.97, and at 18x18x79 0.042 -> 0.021; hdiff 4.86 -> 4.37 / 2.44 -> 2.19, 18x18x79
  //   0.036 -> 0.025 (alignment);
  // - streamVersions with rollVersions (in-place versions filled and committed row by row,
  //   keeping only the rows in flight): del-n 7.34 -> 5.54 / 3.78 -> 2.47, the dycore
  //   27.9 -> 27.6 / 19.7 -> 17.3 (alone: 25.8 / 17.6).
  // The chain and the solver: same code but a noinline region lambda, within noise. Not in
  // the portable preset: recomputeTemporaries leaves ppm's single K loop scalar without
  // AVX-512 (33 -> 47 us at 18x18x79), and the others' AVX2 timings were within noise.
  codegen: { ...cpu.codegen, recomputeTemporaries: true, alignTileColumns: true, streamVersions: true, rollVersions: true },
};

export default cpuNative;
