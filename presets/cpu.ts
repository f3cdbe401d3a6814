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
  // Tiles of 4x32 columns keep a stencil's temporaries in L2; rows along J are contiguous,
  // and a FORWARD/BACKWARD tile sweeps 32-wide vectors level by level. A PARALLEL launch's
  // tiles are also cut into 16 levels: a full tile's K loops then have a trip count g++
  // knows, and unroll without run-time prologues (hdiff at 128x128x80, callgrind: 14.0
  // instead of 17.4 instructions a point, L1 and L2 misses a little lower). Sweeps are
  // never cut along K (plugins/simplify/tiling.ts).
  codegen: { loopOrder: 'IJK', openmp: true, lineDirectives: true, tile: [4, 32, 16] },
  plugins: [],
};

export default cpu;
