import type { Preset } from '../core/config/types.js';
import cuda from './cuda.js';

/** NVIDIA H100 (Hopper, sm_90). */
const cudaH100: Preset = {
  ...cuda,
  name: 'cuda-h100',
  description: 'NVIDIA H100 (sm_90): nvcc -O3, a kernel per loop nest (pointwise PARALLEL neighbours share one)',
  compiler: { ...cuda.compiler, cudaArch: 'sm_90' },
  codegen: { ...cuda.codegen, blockSize: [128, 2, 1], columnBlockSize: [64, 2] },
};

export default cudaH100;
