import type { Backend } from '../../core/config/Backend.js';
import { cpuBackend } from './cpuBackend.js';
import { cudaBackend } from './cudaBackend.js';

/** Every built-in backend by the name presets give. */
export const backends: Record<string, Backend> = { cpu: cpuBackend, cuda: cudaBackend };
