import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { backendNamed } from './Backend.js';
import { createJiti } from 'jiti';
import { didYouMean, fail } from '../diagnostics.js';
import { DEFAULT_COMPILE_TIMEOUT_S } from '../toolchain/compilerProcess.js';
import { PASS_NAMES, type OrchConfig, type PassName, type Preset, type ResolvedConfig, type Toolset } from './types.js';

const CONFIG_NAMES = ['orch.config.ts', 'orch.config.mts', 'orch.config.js', 'orch.config.mjs'];

const KNOWN_KEYS: (keyof OrchConfig)[] = ['modules', 'preset', 'plugins', 'compiler', 'codegen', 'cacheRoot', 'pythonPath', 'externals', 'defines', 'verifyIR', 'passes', 'debug', 'layout'];
const NESTED_KEYS: Record<string, string[]> = {
  compiler: ['cxx', 'flags', 'extraFlags', 'cudaArch', 'mpi', 'launcher', 'timeoutS'],
  codegen: ['loopOrder', 'openmp', 'lineDirectives', 'blockSize', 'columnBlockSize', 'syncLaunches', 'tile'],
  passes: PASS_NAMES,
  debug: ['enabled', 'nan', 'tracers', 'threshold', 'delp', 'action'],
  layout: ['layout', 'domain', 'halo'],
};

export const DEFAULT_TRACERS = ['qvapor', 'qliquid', 'qrain', 'qice', 'qsnow', 'qgraupel', 'qo3mr', 'qsgs_tke', 'qcld'];

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

/** Node's CommonJS module cache, which jiti's module cache shares. */
const requireCache = createRequire(import.meta.url).cache;

/**
 * Loads a config file (TypeScript through jiti) and reports every file it loaded (the
 * config, and the plugins and presets it imports), so watch mode can reload on their
 * changes. Those files are dropped from the module cache again, so the next load reads
 * them afresh; packages under node_modules stay cached.
 */
export async function loadConfigFile(file: string): Promise<{ config: OrchConfig; files: string[] }> {
  const jiti = createJiti(import.meta.url, { moduleCache: true, fsCache: false });
  const before = new Set(Object.keys(requireCache));
  let mod: unknown;
  const files: string[] = [];
  try {
    mod = await jiti.import(file);
  } catch (e) {
    fail('E_CONFIG_LOAD', `cannot load ${file}: ${(e as Error).message.split('\n')[0]}`, { hint: 'fix the error in the config file; it must `export default defineConfig({...})`' });
  } finally {
    for (const f of Object.keys(requireCache)) {
      if (before.has(f) || f.split(path.sep).includes('node_modules')) continue;
      files.push(f);
      delete requireCache[f];
    }
  }
  const cfg = (mod as { default?: unknown }).default ?? mod;
  if (!cfg || typeof cfg !== 'object') fail('E_CONFIG_LOAD', `${file} does not export a config object`, { hint: 'write `export default defineConfig({...})`' });
  return { config: cfg as OrchConfig, files: files.includes(file) ? files : [file, ...files] };
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
  const timeoutS = cfg.compiler?.timeoutS;
  if (timeoutS !== undefined && !(typeof timeoutS === 'number' && Number.isFinite(timeoutS) && timeoutS > 0)) {
    fail('E_CONFIG_VALUE', "'compiler.timeoutS' must be a positive number of seconds", { hint: 'write compiler: { timeoutS: 3600 } (the default is 1800)' });
  }
  if (cfg.modules !== undefined && (!Array.isArray(cfg.modules) || cfg.modules.some((m) => typeof m !== 'string'))) {
    fail('E_CONFIG_VALUE', "'modules' must be a list of glob strings", { hint: "write modules: ['stencils/**/*.py']" });
  }
  const launcher = cfg.compiler?.launcher;
  if (launcher !== undefined && !(Array.isArray(launcher) && launcher.length > 0 && launcher.every((w) => typeof w === 'string' && w.length > 0))) {
    fail('E_CONFIG_VALUE', "'compiler.launcher' must be a non-empty list of strings (a command and its arguments)", { hint: "write compiler: { launcher: ['ccache'] }" });
  }
  if (cfg.compiler?.mpi !== undefined && typeof cfg.compiler.mpi !== 'boolean') {
    fail('E_CONFIG_VALUE', "'compiler.mpi' must be true or false", { hint: 'write compiler: { mpi: true } to link MPI for halo exchanges across ranks' });
  }
  const tile = cfg.codegen?.tile;
  if (tile !== undefined && tile !== false && !(Array.isArray(tile) && (tile.length === 2 || tile.length === 3) && tile.every((n) => Number.isInteger(n) && n > 0))) {
    fail('E_CONFIG_VALUE', "'codegen.tile' must be [ti, tj] or [ti, tj, tk], positive integers, or false", { hint: 'write codegen: { tile: [8, 8, 16] }, or tile: false to run launches untiled' });
  }
  const layout = cfg.layout;
  if (layout !== undefined) {
    const domainOk = Array.isArray(layout?.domain) && layout.domain.length === 3 && layout.domain.every((n) => Number.isInteger(n) && n > 0);
    if (typeof layout?.layout !== 'string' || !domainOk || (layout.halo !== undefined && !(Number.isInteger(layout.halo) && layout.halo >= 0))) {
      fail('E_CONFIG_VALUE', "'layout' must be { layout: 'NXxNY', domain: [nx, ny, nz], halo?: number } (domain: the compute domain of one rank)", { hint: "write layout: { layout: '3x3', domain: [48, 48, 79] }" });
    }
  }
  if (cfg.plugins !== undefined && (!Array.isArray(cfg.plugins) || cfg.plugins.some((p) => !p || typeof p.apply !== 'function' || typeof p.name !== 'string'))) {
    fail('E_CONFIG_VALUE', "'plugins' must be a list of objects with a name and an apply(compiler) method", { hint: 'see docs/plugins.md' });
  }
}

export function presetNamed(presets: Record<string, Preset>, name: string): Preset {
  const p = presets[name];
  if (!p) {
    const guess = didYouMean(name, Object.keys(presets));
    fail('E_PRESET_UNKNOWN', `unknown preset '${name}'`, { hint: `${guess ? `did you mean '${guess}'? ` : ''}presets: ${Object.keys(presets).join(', ')}` });
  }
  return p;
}

export interface ConfigOverrides {
  preset?: string;
  /** --debug: turn the debug checkers on */
  debug?: boolean;
  configFile?: string | null;
  cwd?: string;
}

/** The CUDA architecture setting (config over preset), absent for CPU presets. */
function cudaArchOf(user: OrchConfig, preset: Preset): { cudaArch?: string } {
  const arch = user.compiler?.cudaArch ?? preset.compiler.cudaArch;
  return arch === undefined ? {} : { cudaArch: arch };
}

/** MPI and the compiler launcher (config over preset), absent when neither sets them. */
function mpiAndLauncher(user: OrchConfig, preset: Preset): { mpi?: boolean; launcher?: string[] } {
  const mpi = user.compiler?.mpi ?? preset.compiler.mpi;
  const launcher = user.compiler?.launcher ?? preset.compiler.launcher;
  return { ...(mpi ? { mpi } : {}), ...(launcher ? { launcher: [...launcher] } : {}) };
}

/** Config file (if any) merged over its preset, with CLI overrides on top. */
export async function resolveConfig(toolset: Toolset, over: ConfigOverrides = {}): Promise<ResolvedConfig> {
  const cwd = path.resolve(over.cwd ?? process.cwd());
  const file = over.configFile === undefined ? findConfigFile(cwd) : over.configFile;
  const loaded = file ? await loadConfigFile(file) : { config: {}, files: [] };
  const user: OrchConfig = loaded.config;
  if (file) validateConfig(user, file);
  const root = file ? path.dirname(file) : cwd;
  const preset = presetNamed(toolset.presets, over.preset ?? user.preset ?? 'cpu');
  const flags = [...(user.compiler?.flags ?? preset.compiler.flags), ...(user.compiler?.extraFlags ?? [])];
  const envRoot = process.env.GT_CACHE_ROOT;
  return {
    root,
    configFile: file,
    files: loaded.files,
    modules: user.modules ?? [],
    preset,
    backend: backendNamed(toolset.backends, preset.backend, preset.name),
    stages: toolset.stages,
    plugins: [...preset.plugins, ...(user.plugins ?? [])],
    compiler: { cxx: user.compiler?.cxx ?? preset.compiler.cxx, flags, ...cudaArchOf(user, preset), ...mpiAndLauncher(user, preset), timeoutS: user.compiler?.timeoutS ?? preset.compiler.timeoutS ?? DEFAULT_COMPILE_TIMEOUT_S },
    codegen: { ...preset.codegen, ...(user.codegen ?? {}) },
    // the environment wins so MPI launchers and CI can redirect the cache
    cacheRoot: path.resolve(envRoot || (user.cacheRoot ? path.resolve(root, user.cacheRoot) : cwd)),
    pythonPath: [...(user.pythonPath ?? []).map((p) => path.resolve(root, p)), ...(process.env.PYTHONPATH ?? '').split(path.delimiter).filter(Boolean).map((p) => path.resolve(p))],
    externals: user.externals ?? {},
    defines: user.defines ?? {},
    verifyIR: user.verifyIR ?? process.env.ORCH_VERIFY_IR === '1',
    passes: Object.fromEntries(PASS_NAMES.map((n) => [n, user.passes?.[n] !== false])) as Record<PassName, boolean>,
    debug: {
      enabled: false,
      nan: true,
      tracers: DEFAULT_TRACERS,
      threshold: -1e-8,
      delp: true,
      action: 'abort',
      ...(preset.debug ?? {}),
      ...(user.debug ?? {}),
      ...(over.debug ? { enabled: true } : {}),
    },
    layout: user.layout,
  };
}
