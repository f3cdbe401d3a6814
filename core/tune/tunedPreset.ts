import os from 'node:os';
import type { CodegenOptions, Preset } from '../config/types.js';
import type { TuneResult } from './Tuner.js';

/** A preset name `orch tune --write-preset` accepts: it is also the file's name. */
export const PRESET_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** The file a tuned preset is written to, beside the config: `<name>.preset.ts`. */
export function presetFileName(name: string): string {
  return `${name}.preset.ts`;
}

/** The tuned preset: the base preset with the winning codegen options. */
export function tunedPreset(base: Preset, name: string, result: TuneResult): Preset {
  const codegen: CodegenOptions = { ...base.codegen, ...result.best.changes };
  return { ...base, name, description: `${base.description}; tuned by orch tune for ${result.entry} at ${result.domain.join('x')}`, codegen, plugins: base.plugins };
}

/**
 * The preset as a TypeScript module the config imports: plain data (its one import is of
 * a type, so it loads wherever the config does), with a header saying where it came from and how fast
 * the default and the winner ran.
 */
export function presetModule(preset: Preset, base: Preset, result: TuneResult, command: string): string {
  const ms = (s: number | undefined) => `${((s ?? NaN) * 1e3).toFixed(3)} ms`;
  const { base: d, best } = result;
  const c = result.confirmation;
  const speed = c
    ? `${ms(c.default.median_s)} (default) -> ${ms(c.best.median_s)} (${best.label}), ${c.speedup.toFixed(2)}x in ${c.policy.blocks} alternating blocks of ${c.policy.callsPerBlock} calls (needed ${c.required.toFixed(2)}x)`
    : d.status === 'timed'
      ? `${ms(d.median_s)} (default) -> ${ms(best.median_s)} (${best.label}), median of ${best.runs} calls`
      : `${ms(best.median_s)} (${best.label}; the default did not match the interpreter), median of ${best.runs} calls`;
  const { plugins: _, ...data } = preset;
  const lines = [
    `// Written by \`${command}\` on ${new Date().toISOString()}`,
    `// on ${os.hostname()} (${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores), from preset '${base.name}'.`,
    `// ${result.entry} at ${result.domain.join('x')}: ${speed}.`,
    `// ${result.candidates.length} schedules tried; each matched the interpreter bit for bit before it was timed.`,
    '// Use it in orch.config.ts:',
    `//   import ${preset.name.replace(/[^A-Za-z0-9_]/g, '_')} from './${presetFileName(preset.name)}';`,
    `//   export default defineConfig({ preset: ${preset.name.replace(/[^A-Za-z0-9_]/g, '_')} });`,
    // a type-only import: erased when the config loads, there for the editor and tsc
    "import type { Preset } from 'orch';",
    '',
    `const preset: Preset = ${JSON.stringify({ ...data, plugins: [] }, null, 2)};`,
    '',
    'export default preset;',
    '',
  ];
  return lines.join('\n');
}
