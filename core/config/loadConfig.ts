import { existsSync } from 'node:fs';
import { parseSize } from '../cache/quantities.js';
import { PACKAGE_ROOT } from '../cache/hashing.js';
import { createRequire } from 'node:module';
import path from 'node:path';
import { backendNamed } from './Backend.js';
import { didYouMean } from '../diagnostics.js';
import { DEFAULT_COMPILE_TIMEOUT_S } from '../toolchain/compilerProcess.js';
import { PASS_NAMES, type OrchConfig, type PassName, type Preset, type ResolvedConfig, type Toolset } from './types.js';
import { validateConfig } from './validateConfig.js';
import { configSyntaxError, configUnloadable, doesNotExportConfig, presetBackendUnknown, unknownPreset } from '../diagnostics/configErrors.js';

export { validateConfig };

const CONFIG_NAMES = ['orch.config.ts', 'orch.config.mts', 'orch.config.js', 'orch.config.mjs'];

const DEFAULT_TRACERS = ['qvapor', 'qliquid', 'qrain', 'qice', 'qsnow', 'qgraupel', 'qo3mr', 'qsgs_tke', 'qcld'];

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
/**
 * Where jiti keeps the config's transpiled JavaScript between runs: the project's
 * node_modules/.cache, where other tools keep theirs (a tenth of a start saved: a cached
 * file needs no TypeScript transform). Entries are checked against a hash of the source,
 * so an edited config is transpiled again. Without a node_modules beside the config, no
 * cache: never a folder shared with other users, such as /tmp.
 */
function transpileCache(file: string): string | false {
  const modules = path.join(path.dirname(file), 'node_modules');
  return existsSync(modules) ? path.join(modules, '.cache', 'jiti') : false;
}

/** Set by the CLI's bundle (scripts/bundleCli.ts) to its own copy of the package API. */
declare const ORCH_API_ENTRY: string | undefined;

/**
 * What a config's `import ... from 'orch'` loads: the package API of the code loading it,
 * so plugins and errors the config makes are this process's own classes (instanceof
 * OrchError, the hooks they tap). The bundled CLI carries its own copy of the API.
 */
const ORCH_API = path.join(PACKAGE_ROOT, typeof ORCH_API_ENTRY === 'string' ? ORCH_API_ENTRY : path.join('dist', 'index.js'));

export async function loadConfigFile(file: string): Promise<{ config: OrchConfig; files: string[] }> {
  // imported here, not at the top: loading jiti is about a tenth of an orch start, which a
  // project without a config file does not need
  const { createJiti } = await import('jiti');
  const jiti = createJiti(import.meta.url, { moduleCache: true, fsCache: transpileCache(file), alias: { orch: ORCH_API } });
  const before = new Set(Object.keys(requireCache));
  let mod: unknown;
  const files: string[] = [];
  try {
    mod = await jiti.import(file);
  } catch (e) {
    const message = (e as Error).message ?? String(e);
    // jiti reports a syntax error as `ParseError: <what>\n <file>:<line>:<col>` (col from 0)
    const at = /^\s*(?:\w*Error: )?([^\n]*?)\s*\n\s*(\S+):(\d+):(\d+)/.exec(message);
    if (at && path.resolve(at[2]) === path.resolve(file)) {
      throw configSyntaxError(path.basename(file), at[1], { file, line: Number(at[3]), col: Number(at[4]) + 1 });
    }
    throw configUnloadable(file, message.split('\n')[0]);
  } finally {
    for (const f of Object.keys(requireCache)) {
      if (before.has(f) || f.split(path.sep).includes('node_modules')) continue;
      files.push(f);
      delete requireCache[f];
    }
  }
  const cfg = (mod as { default?: unknown }).default ?? mod;
  if (!cfg || typeof cfg !== 'object') throw doesNotExportConfig(file);
  return { config: cfg as OrchConfig, files: files.includes(file) ? files : [file, ...files] };
}

export function presetNamed(presets: Record<string, Preset>, name: string): Preset {
  const p = presets[name];
  if (!p) {
    const guess = didYouMean(name, Object.keys(presets));
    throw unknownPreset(name, guess, Object.keys(presets).join(', '));
  }
  return p;
}

/** A preset the config gives as data; its backend must be one of the toolset's. */
function presetObject(toolset: Toolset, preset: Preset, file: string | null): Preset {
  if (!toolset.backends[preset.backend]) {
    const guess = didYouMean(preset.backend, Object.keys(toolset.backends));
    throw presetBackendUnknown(preset.name, preset.backend, file ? ` (in ${path.basename(file)})` : '', guess, Object.keys(toolset.backends).join(', '));
  }
  return preset;
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
  const chosen = over.preset ?? user.preset ?? 'cpu';
  const preset = typeof chosen === 'string' ? presetNamed(toolset.presets, chosen) : presetObject(toolset, chosen, file);
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
    cache: { maxBytes: typeof user.cache?.maxSize === 'string' ? parseSize(user.cache.maxSize, 'cache.maxSize') : user.cache?.maxSize },
  };
}
