import { presetNamed as presetIn, resolveConfig as resolveWith, type ConfigOverrides } from '../core/config/loadConfig.js';
import type { Preset, ResolvedConfig, Toolset } from '../core/config/types.js';
import { builtinPlugins } from '../plugins/builtins.js';
import { backends } from '../plugins/backends/index.js';
import { presets } from '../presets/index.js';
import { cacheRootExists } from './cacheRoot.js';

/** orch as shipped: the core, given the built-in stages, presets and backends (the core imports none of them). */
export const toolset: Toolset = { stages: builtinPlugins, presets, backends };

/** Config file (if any) merged over its preset, with overrides on top, using the built-in toolset. */
export async function resolveConfig(over: ConfigOverrides = {}): Promise<ResolvedConfig> {
  const config = await resolveWith(toolset, over);
  cacheRootExists(config);
  return config;
}

/** A built-in preset by name (E_PRESET_UNKNOWN with a suggestion otherwise). */
export function presetNamed(name: string): Preset {
  return presetIn(presets, name);
}
