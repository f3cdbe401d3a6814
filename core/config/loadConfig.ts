import { existsSync } from 'node:fs';
import path from 'node:path';
import { createJiti } from 'jiti';
import { presets } from '../../presets/index.js';
import { didYouMean, fail } from '../diagnostics.js';
import type { OrchConfig, ResolvedConfig } from './types.js';

const CONFIG_NAMES = ['orch.config.ts', 'orch.config.mts', 'orch.config.js', 'orch.config.mjs'];

const KNOWN_KEYS: (keyof OrchConfig)[] = ['modules', 'preset', 'plugins', 'compiler', 'codegen', 'cacheRoot', 'pythonPath', 'externals', 'defines', 'verifyIR'];
const NESTED_KEYS: Record<string, string[]> = {
  compiler: ['cxx', 'flags', 'extraFlags'],
  codegen: ['loopOrder', 'openmp', 'lineDirectives'],
};

/** Finds orch.config.* in `dir` or its parents. */
export function findConfigFile(dir: string): string | null {
  let d = path.resolve(dir);
  for (;;) {
    for (const n of CONFIG_NAMES) {
      const f = path.join(d, n);
      if (existsSync(f)) return f;
    }
    const up = path.dirname(d);
    if (up === d) return null;
    d = up;
  }
}

/** Loads a config file (TypeScript through jiti). */
export async function loadConfigFile(file: string): Promise<OrchConfig> {
  const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: false });
  let mod: unknown;
  try {
    mod = await jiti.import(file);
  } catch (e) {
    fail('E_CONFIG_LOAD', `cannot load ${file}: ${(e as Error).message.split('\n')[0]}`, { hint: 'fix the error in the config file; it must `export default defineConfig({...})`' });
  }
  const cfg = (mod as { default?: unknown }).default ?? mod;
  if (!cfg || typeof cfg !== 'object') fail('E_CONFIG_LOAD', `${file} does not export a config object`, { hint: 'write `export default defineConfig({...})`' });
  return cfg as OrchConfig;
}

export function validateConfig(cfg: OrchConfig, file: string): void {
  for (const key of Object.keys(cfg)) {
    if (!(KNOWN_KEYS as string[]).includes(key)) {
      const guess = didYouMean(key, KNOWN_KEYS);
      fail('E_CONFIG_KEY', `unknown config key '${key}' in ${path.basename(file)}`, { hint: guess ? `did you mean '${guess}'?` : `known keys: ${KNOWN_KEYS.join(', ')}` });
    }
    const nested = NESTED_KEYS[key];
    const v = (cfg as Record<string, unknown>)[key];
    if (nested && v && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        if (!nested.includes(k)) {
          const guess = didYouMean(k, nested);
          fail('E_CONFIG_KEY', `unknown config key '${key}.${k}' in ${path.basename(file)}`, { hint: guess ? `did you mean '${key}.${guess}'?` : `known keys: ${nested.join(', ')}` });
        }
      }
    }
  }
  if (cfg.modules !== undefined && (!Array.isArray(cfg.modules) || cfg.modules.some((m) => typeof m !== 'string'))) {
    fail('E_CONFIG_VALUE', "'modules' must be a list of glob strings", { hint: "write modules: ['stencils/**/*.py']" });
  }
  if (cfg.plugins !== undefined && (!Array.isArray(cfg.plugins) || cfg.plugins.some((p) => !p || typeof p.apply !== 'function' || typeof p.name !== 'string'))) {
    fail('E_CONFIG_VALUE', "'plugins' must be a list of objects with a name and an apply(compiler) method", { hint: 'see docs/plugins.md' });
  }
}

export function presetNamed(name: string) {
  const p = presets[name];
  if (!p) {
    const guess = didYouMean(name, Object.keys(presets));
    fail('E_PRESET_UNKNOWN', `unknown preset '${name}'`, { hint: `${guess ? `did you mean '${guess}'? ` : ''}presets: ${Object.keys(presets).join(', ')}` });
  }
  return p;
}

export interface ConfigOverrides {
  preset?: string;
  configFile?: string | null;
  cwd?: string;
}

/** Config file (if any) merged over its preset, with CLI overrides on top. */
export async function resolveConfig(over: ConfigOverrides = {}): Promise<ResolvedConfig> {
  const cwd = path.resolve(over.cwd ?? process.cwd());
  const file = over.configFile === undefined ? findConfigFile(cwd) : over.configFile;
  const user: OrchConfig = file ? await loadConfigFile(file) : {};
  if (file) validateConfig(user, file);
  const root = file ? path.dirname(file) : cwd;
  const preset = presetNamed(over.preset ?? user.preset ?? 'cpu');
  const flags = [...(user.compiler?.flags ?? preset.compiler.flags), ...(user.compiler?.extraFlags ?? [])];
  const envRoot = process.env.GT_CACHE_ROOT;
  return {
    root,
    configFile: file,
    modules: user.modules ?? [],
    preset,
    plugins: [...preset.plugins, ...(user.plugins ?? [])],
    compiler: { cxx: user.compiler?.cxx ?? preset.compiler.cxx, flags },
    codegen: { ...preset.codegen, ...(user.codegen ?? {}) },
    // the environment wins so MPI launchers and CI can redirect the cache
    cacheRoot: path.resolve(envRoot || (user.cacheRoot ? path.resolve(root, user.cacheRoot) : cwd)),
    pythonPath: [...(user.pythonPath ?? []).map((p) => path.resolve(root, p)), ...(process.env.PYTHONPATH ?? '').split(path.delimiter).filter(Boolean).map((p) => path.resolve(p))],
    externals: user.externals ?? {},
    defines: user.defines ?? {},
    verifyIR: user.verifyIR ?? process.env.ORCH_VERIFY_IR === '1',
  };
}
