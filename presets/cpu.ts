import type { Preset } from '../core/config/types.js';

/** Portable CPU build: g++ -O3 with OpenMP, loops ordered for C-ordered (I, J, K) fields. */
const cpu: Preset = {
  name: 'cpu',
  description: 'portable CPU: g++ -O3 with OpenMP',
  backend: 'cpu',
  compiler: {
    cxx: 'g++',
    flags: ['-O3', '-std=c++17', '-fopenmp', '-fPIC', '-shared', '-fno-math-errno'],
  },
  // Tiles of 4x32 whole columns keep a stencil's temporaries in L2; rows along J are
  // contiguous, and a FORWARD/BACKWARD tile sweeps 32-wide vectors level by level. Tiles cut
  // into 16 levels ran fewer instructions (hdiff, callgrind: 14.0 instead of 17.4 a point,
  // AVX2) but were 15-25% slower when timed with -march=native (AVX-512, 128x128x80, 1 thread),
  // so 4x32x16 is left to orch tune.
  // unrollLoops and fuseNests were timed faster (128x128x80, alternating runs, medians):
  // unrollLoops del-n 9.0 -> 6.1 ms and the dycore 46 -> 26 ms at 1 thread (cpu-native),
  // fuseNests hdiff 5.7 -> 4.8 ms (cpu) and 4.9 -> 4.0 ms (cpu-native), the dycore 2-4% slower.
  // sweepBlock (blocked Thomas sweeps) stays off until timed as a default: 1.8x faster at
  // 128x128x80 with AVX-512; each call falls back to the default tiles without AVX-512 and
  // on small domains (orch::sweep_blocks); orch tune tries it.
  codegen: { loopOrder: 'IJK', openmp: true, lineDirectives: true, tile: [4, 32], unrollLoops: true, fuseNests: true },
  plugins: [],
};

export default cpu;
