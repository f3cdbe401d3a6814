/**
 * orch's package entry (`from 'orch'`): the core's API, with the built-in presets and a
 * resolveConfig that uses them. See docs/plugins.md and docs/config.md.
 */
export * from './core/index.js';
export { presets } from './presets/index.js';
export { presetNamed, resolveConfig, toolset } from './cli/toolset.js';
