import { mkdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { AsyncSeriesHook, SyncHook } from 'tapable';
import { BuildCache, type EntryInputs } from './cache/BuildCache.js';
import { nativeHeadersHash, orchVersion, sha256 } from './cache/hashing.js';
import { Compilation, type PipelineOptions } from './Compilation.js';
import type { ResolvedConfig } from './config/types.js';
import { OrchError, OrchErrors, type Diagnostic } from './diagnostics.js';
import type { EntryBuild } from './EntryBuild.js';
import type { Program } from './ir/types.js';
import { writeFileAtomic } from './runtime/atomicWrite.js';
import { entryInterface, type EntryInterface } from './runtime/callArgs.js';
import { builtinPlugins } from '../plugins/builtins.js';
import { compilerIdentity } from '../plugins/compile/gxx.js';
import { moduleEntries } from '../plugins/parse/frontend.js';
import type { Value } from '../plugins/parse/values.js';

export type BuildMode = 'build' | 'python' | 'lookup';

export interface BuildRequest {
  /** Absolute module paths. */
  modules: string[];
  /** Restrict to one entry (orch run); otherwise every entry of each module. */
  entry?: string;
  externals: Record<string, Value>;
  defines: Record<string, number | boolean>;
  /** build: hit or build; python: IR only, no cache; lookup: hit or report the miss. */
  mode: BuildMode;
}

export interface EntryResult {
  module: string;
  moduleRel: string;
  entry: string;
  status: 'hit' | 'miss' | 'built' | 'error';
  /** Why the cache missed. */
  reason?: string;
  key?: string;
  dir?: string;
  library?: string;
  symbol?: string;
  program?: Program;
  /** How to call the entry (from the IR, or from build-info.json on a hit). */
  iface?: EntryInterface;
  warnings: Diagnostic[];
  errors: Diagnostic[];
  durationS: number;
  timings: Record<string, number>;
}

export interface BuildResult {
  entries: EntryResult[];
  errors: Diagnostic[];
  durationS: number;
  fileDependencies: string[];
  /** pass:plugin -> milliseconds (for --time-passes) */
  passTimes: Map<string, number>;
}

/**
 * One per orch invocation (or watch session): owns the config, the cache and the
 * plugins. Lifecycle hooks follow webpack's: beforeRun -> run -> compilation -> done,
 * with watchRun/invalid for watch mode and failed for errors that stop a build.
 */
export class Compiler {
  readonly hooks = Object.freeze({
    beforeRun: new AsyncSeriesHook<[Compiler]>(['compiler']),
    run: new AsyncSeriesHook<[Compiler]>(['compiler']),
    watchRun: new AsyncSeriesHook<[Compiler, string[]]>(['compiler', 'changedFiles']),
    invalid: new SyncHook<[string, number]>(['fileName', 'changeTime']),
    compilation: new SyncHook<[Compilation]>(['compilation']),
    done: new AsyncSeriesHook<[BuildResult]>(['result']),
    failed: new SyncHook<[Error]>(['error']),
  });

  readonly cache: BuildCache;
  private identity: Promise<string> | undefined;

  constructor(
    readonly config: ResolvedConfig,
    readonly pipeline: PipelineOptions,
    readonly codepath = 'A',
  ) {
    this.cache = new BuildCache(config.cacheRoot, codepath);
    for (const p of [...builtinPlugins(), ...config.plugins]) p.apply(this);
  }

  /** Module path relative to the project root (cache folder and messages). */
  moduleRel(file: string): string {
    const rel = path.relative(this.config.root, file);
    return rel.startsWith('..') || path.isAbsolute(rel) ? file.replace(/^[/\\]+/, '') : rel;
  }

  private async entryInputs(moduleRel: string, entry: string, req: BuildRequest): Promise<EntryInputs> {
    this.identity ??= compilerIdentity(this.config.compiler.cxx).catch(() => 'unavailable');
    return {
      module: moduleRel,
      entry,
      codepath: this.codepath,
      externals: req.externals,
      defines: req.defines,
      preset: this.config.preset.name,
      compiler: { cxx: this.config.compiler.cxx, identity: await this.identity, flags: this.config.compiler.flags },
      codegen: this.config.codegen,
      plugins: this.config.plugins.map((p) => ({ name: p.name, version: p.version ?? '0' })),
      // where imports resolve decides which files are read
      pythonPath: this.config.pythonPath,
      orch: orchVersion(),
      native: nativeHeadersHash(),
    };
  }

  /** The entries of a module; remembered per module source so a hit parses nothing. */
  private entriesOf(file: string, compilation: Compilation): string[] {
    const source = readFileSync(file, 'utf8');
    const memo = path.join(this.cache.dir, '.modules', `${sha256(file)}-${sha256(source).slice(0, 16)}.json`);
    try {
      return JSON.parse(readFileSync(memo, 'utf8')) as string[];
    } catch {
      const names = moduleEntries(compilation.loader.load(file)).map((f) => f.name);
      try {
        mkdirSync(path.dirname(memo), { recursive: true });
        writeFileAtomic(memo, JSON.stringify(names));
      } catch {
        // a read-only cache still builds
      }
      return names;
    }
  }

  async build(req: BuildRequest): Promise<BuildResult> {
    const t0 = performance.now();
    const compilation = new Compilation(this.config, this.cache, this.pipeline);
    this.hooks.compilation.call(compilation);
    const results: EntryResult[] = [];
    const errors: Diagnostic[] = [];
    try {
      await this.hooks.beforeRun.promise(this);
      await this.hooks.run.promise(this);
      const jobs: (() => Promise<void>)[] = [];
      for (const file of req.modules) {
        const moduleRel = this.moduleRel(file);
        let entries: string[];
        try {
          entries = req.entry ? [req.entry] : this.entriesOf(file, compilation);
        } catch (e) {
          const diags = toDiagnostics(e);
          errors.push(...diags);
          results.push({ module: file, moduleRel, entry: '*', status: 'error', errors: diags, warnings: [], durationS: 0, timings: {} });
          continue;
        }
        for (const entry of entries) jobs.push(() => this.buildEntry(file, moduleRel, entry, req, compilation).then((r) => void results.push(r)));
      }
      await runLimited(jobs, Math.max(1, availableParallelism()));
    } catch (e) {
      this.hooks.failed.call(e as Error);
      throw e;
    }
    for (const r of results) errors.push(...r.errors);
    const result: BuildResult = {
      entries: results.sort((a, b) => (a.moduleRel + a.entry).localeCompare(b.moduleRel + b.entry)),
      errors,
      durationS: (performance.now() - t0) / 1000,
      fileDependencies: [...compilation.fileDependencies],
      passTimes: compilation.passTimes,
    };
    await this.hooks.done.promise(result);
    return result;
  }

  private async buildEntry(file: string, moduleRel: string, entry: string, req: BuildRequest, compilation: Compilation): Promise<EntryResult> {
    const t0 = performance.now();
    const inputs = await this.entryInputs(moduleRel, entry, req);
    const base = { module: file, moduleRel, entry, warnings: [] as Diagnostic[], errors: [] as Diagnostic[], timings: {} as Record<string, number> };
    if (req.mode !== 'python') {
      const found = this.cache.lookup(inputs);
      if (found.status === 'hit') {
        this.cache.record(moduleRel, entry, { time: new Date().toISOString(), result: 'hit', key: found.key });
        // cached warnings are replayed on a hit
        const warnings = (found.info.warnings ?? []) as Diagnostic[];
        return {
          ...base,
          status: 'hit',
          key: found.key,
          dir: found.dir,
          library: path.join(found.dir, found.info.library),
          symbol: found.info.symbol,
          iface: found.info.interface as EntryInterface,
          warnings,
          durationS: (performance.now() - t0) / 1000,
        };
      }
      if (req.mode === 'lookup') return { ...base, status: 'miss', reason: found.reason, durationS: (performance.now() - t0) / 1000 };
      const build = this.newBuild(file, moduleRel, entry, req, inputs, found.optionsKey);
      try {
        await compilation.runEntry(build);
      } catch (e) {
        const diags = toDiagnostics(e);
        this.cache.record(moduleRel, entry, { time: new Date().toISOString(), result: 'error', reason: diags[0]?.message });
        return { ...base, status: 'error', reason: found.reason, errors: diags, durationS: (performance.now() - t0) / 1000, timings: build.timings };
      }
      this.cache.record(moduleRel, entry, { time: new Date().toISOString(), result: 'miss', key: build.key, reason: found.reason });
      return {
        ...base,
        status: 'built',
        reason: found.reason,
        key: build.key,
        dir: build.dir,
        library: build.library,
        symbol: build.cpp?.symbol,
        warnings: build.warnings,
        program: build.program,
        iface: build.program && entryInterface(build.program),
        durationS: (performance.now() - t0) / 1000,
        timings: build.timings,
      };
    }
    const build = this.newBuild(file, moduleRel, entry, req, inputs, '');
    try {
      await compilation.runEntry(build);
    } catch (e) {
      return { ...base, status: 'error', errors: toDiagnostics(e), durationS: (performance.now() - t0) / 1000 };
    }
    return { ...base, status: 'built', program: build.program, iface: build.program && entryInterface(build.program), durationS: (performance.now() - t0) / 1000, timings: build.timings };
  }

  private newBuild(file: string, moduleRel: string, entry: string, req: BuildRequest, inputs: EntryInputs, optionsKey: string): EntryBuild {
    return { module: file, moduleRel, entry, externals: req.externals, defines: req.defines, inputs, optionsKey, files: new Map(), env: new Map(), warnings: [], timings: {} };
  }
}

export function toDiagnostics(e: unknown): Diagnostic[] {
  if (e instanceof OrchError) return [e.diagnostic];
  if (e instanceof OrchErrors) return e.diagnostics;
  throw e;
}

async function runLimited(jobs: (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
}
