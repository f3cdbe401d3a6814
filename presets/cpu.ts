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
  // Each launch gets a tile from its kind (tile 'auto', plugins/simplify/launchTiles.ts):
  // 4x32 whole columns for most (a stencil's temporaries stay in L2, rows along J are
  // contiguous, a FORWARD/BACKWARD tile sweeps 32-wide vectors level by level), wider ones
  // where nests fuse or arrays are versioned. Every default below was timed faster in a
  // quiet A/B (134x134x80 arrays, alternating `orch run --repeat 60`, medians of 4-6 rounds):
  // - unrollLoops: del-n 9.0 -> 6.1 ms, the dycore 46 -> 26 ms (1 thread, cpu-native);
  // - fuseNests: hdiff 5.7 -> 4.8 ms (cpu), 4.9 -> 4.0 ms (cpu-native);
  // - tile 'auto': hdiff 4.42 -> 3.79 ms (1 thread), 2.68 -> 2.20 ms (2 threads; a noisier
  //   round: 2.06 -> 2.11), the dycore 17.1 -> 13.6 ms (2 threads; 1 thread within noise);
  // - jamLevels 8 (fused nests of more than 8 share no K loop): the dycore ~5% faster;
  // - sweepBlock 32 (blocked Thomas sweeps, only with AVX-512 and >= 65536 points a thread,
  //   else each call runs the plain tiles: orch::sweep_blocks): vertical solver 4.72 -> 2.84 ms
  //   (1 thread), 2.40 -> 1.30 ms (2); 12x12x79 and the cpu preset unchanged;
  // - fuseRegions: ppm 5.68 -> 4.82 ms (1 thread), other fixtures' code unchanged.
  // With all four on the cpu preset (AVX2, 1 thread): hdiff 5.36 -> 4.88, dycore 45.1 -> 33.7,
  // ppm 6.01 -> 4.99 ms, the solver unchanged. Cut K tiles, vectorWidth and the version
  // schedules were not faster everywhere: orch tune tries them.
  codegen: { loopOrder: 'IJK', openmp: true, lineDirectives: true, tile: 'auto', unrollLoops: true, fuseNests: true, jamLevels: 8, sweepBlock: 32, fuseRegions: true },
  plugins: [],
};

export default cpu;
