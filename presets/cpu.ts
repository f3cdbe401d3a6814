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
  // tiles of 8x8 columns, 16 levels deep where a launch allows, keep a stencil's temporaries in L1/L2
  codegen: { loopOrder: 'IJK', openmp: true, lineDirectives: true, tile: [8, 8, 16] },
  plugins: [],
};

export default cpu;
