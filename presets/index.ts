import type { Preset } from '../core/config/types.js';
import cpu from './cpu.js';
import cpuNative from './cpu-native.js';
import debug from './debug.js';

/** Every built-in preset by name. */
export const presets: Record<string, Preset> = {
  cpu,
  'cpu-native': cpuNative,
  debug,
};
