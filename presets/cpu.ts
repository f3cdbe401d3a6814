import type { Preset } from '../core/config/types.js';

/** Portable CPU build: g++ -O3 with OpenMP, loops ordered for C-ordered (I, J, K) fields. */
const cpu: Preset = {
  name: 'cpu',
  description: 'portable CPU: g++ -O3 with OpenMP',
  target: 'cpu',
  compiler: {
    cxx: 'g++',
    flags: ['-O3', '-std=c++17', '-fopenmp', '-fPIC', '-shared', '-fno-math-errno'],
  },
  // tiles of 8x8 whole columns keep a stencil's temporaries in L2 (cutting K too was slower:
  // short column pieces defeat the prefetcher on K-contiguous fields)
  codegen: { loopOrder: 'IJK', openmp: true, lineDirectives: true, tile: [8, 8] },
  plugins: [],
};

export default cpu;
