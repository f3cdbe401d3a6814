import type { Preset } from '../core/config/types.js';
import cpu from './cpu.js';
import cpuNative from './cpu-native.js';
import cuda from './cuda.js';
import cudaA100 from './cuda-a100.js';
import cudaH100 from './cuda-h100.js';
import debug from './debug.js';

/** Every built-in preset by name. */
export const presets: Record<string, Preset> = {
  cpu,
  'cpu-native': cpuNative,
  debug,
  cuda,
  'cuda-h100': cudaH100,
  'cuda-a100': cudaA100,
};
