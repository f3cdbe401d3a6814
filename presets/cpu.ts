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
  // contiguous, and a FORWARD/BACKWARD tile sweeps 32-wide vectors level by level. Cutting K
  // too was slower: short column pieces defeat the prefetcher on K-contiguous fields.
  codegen: { loopOrder: 'IJK', openmp: true, lineDirectives: true, tile: [4, 32] },
  plugins: [],
};

export default cpu;
