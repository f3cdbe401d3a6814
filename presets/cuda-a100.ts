import type { Preset } from '../core/config/types.js';
import cuda from './cuda.js';

/** NVIDIA A100 (Ampere, sm_80). */
const cudaA100: Preset = {
  ...cuda,
  name: 'cuda-a100',
  description: 'NVIDIA A100 (sm_80): nvcc -O3, a kernel per loop nest (pointwise PARALLEL neighbours share one)',
  compiler: { ...cuda.compiler, cudaArch: 'sm_80' },
  codegen: { ...cuda.codegen, blockSize: [128, 2, 1], columnBlockSize: [64, 2] },
};

export default cudaA100;
