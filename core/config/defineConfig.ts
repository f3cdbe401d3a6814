import type { OrchConfig } from './types.js';

/** Typed identity, so config files get completion and type checking. */
export function defineConfig(config: OrchConfig): OrchConfig {
  return config;
}
