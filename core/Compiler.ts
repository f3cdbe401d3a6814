import { launcherKey } from './toolchain/launcher.js';
import { mpiToolchain } from './toolchain/mpi.js';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { AsyncSeriesHook, SyncHook } from 'tapable';
import { BuildCache, type BuildInfo, type EntryInputs } from './cache/BuildCache.js';
import { EntryCache, type EntryTransaction } from './cache/EntryCache.js';
import { describeOwner } from './cache/EntryLock.js';
import { CacheLimitPlugin } from './cache/CacheLimitPlugin.js';
import type { EvictionResult } from './cache/eviction.js';
import type { CodePath, LayoutTarget } from './layout/RankLayout.js';
import { nativeHeaderFiles, nativeHeadersHash, orchVersion, PACKAGE_ROOT } from './cache/hashing.js';
import { Compilation, type EntryRef, type PipelineOptions } from './Compilation.js';
import type { CodegenOptions, ResolvedConfig } from './config/types.js';
import { tunedCodegen } from './cache/tunedSchedules.js';
import { OrchError, OrchErrors, type Diagnostic } from './diagnostics.js';
import { EntryBuild } from './EntryBuild.js';
import type { Program } from './ir/types.js';
import { ModuleEntriesMemo } from './cache/ModuleEntriesMemo.js';
import { EntrySignatureMemo } from './cache/EntrySignatureMemo.js';
import { entryInterface, type EntryInterface } from './runtime/callArgs.js';
import { findEntry, moduleEntries } from './frontend/entries.js';
import { entryDefines, entrySignature, type EntrySignature } from './frontend/entrySignature.js';
import { checkBackend } from './config/gt4pyBackend.js';
import type { Value } from './frontend/values.js';
import type { Closure } from './frontend/closure.js';

/** The folder holding orch's Python package (on PYTHONPATH wherever programs run from Python). */
const ORCH_PYTHON_PACKAGE = path.join(PACKAGE_ROOT, 'python');

export type BuildMode = 'build' | 'python' | 'lookup';

export interface BuildRequest {
  /** Absolute module paths. */
  modules: string[];
  /** Restrict to one entry (orch run); otherwise every entry of each module. */
  entry?: string;
  /** Per module (absolute path): the entries to build (`orch build m.py:A m.py:B`). */
  entries?: Record<string, string[]>;
  externals: Record<string, Value>;
  defines: Record<string, number | boolean>;
  /** An orchestrated component's resolved closure (with one entry: its class). */
  closure?: Closure;
  /** build: hit or build; python: IR only, no cache; lookup: hit or report the miss. */
  mode: BuildMode;
  /** Entry keys whose library failed to load, with why: marked bad, so a lookup misses and a build replaces them. */
  badEntries?: Record<string, string>;
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
  /** The generated Python binding of the library. */
  binding?: string;
  program?: Program;
  /** How to call the entry (from the IR, or from build-info.json on a hit). */
  iface?: EntryInterface;
  warnings: Diagnostic[];
  errors: Diagnostic[];
  durationS: number;
  timings: Record<string, number>;
  /** Absolute paths of the source files the entry depends on (the module and its imports). */
  files: string[];
}

export interface BuildResult {
  entries: EntryResult[];
  errors: Diagnostic[];
  durationS: number;
  /** Every file the build depended on: modules, their imports, config and plugins, native headers. */
  fileDependencies: string[];
  /** pass:plugin -> milliseconds (for --time-passes) */
  passTimes: Map<string, number>;
  /** What `cache.maxSize` evicted after the build (CacheLimitPlugin). */
  evicted?: EvictionResult;
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

  readonly cache: EntryCache;
  private readonly memo: ModuleEntriesMemo;
  private readonly signatures: EntrySignatureMemo;
  private identity: Promise<string> | undefined;
  private cudaArch: Promise<string> | undefined;

  constructor(
    readonly config: ResolvedConfig,
    readonly pipeline: PipelineOptions,
    readonly codepath = 'A',
    /** Set for layout builds: every entry is built for this code path of this rank grid. */
    readonly layout: LayoutTarget | null = null,
  ) {
    this.cache = new EntryCache(new BuildCache(config.cacheRoot, codepath));
    this.memo = new ModuleEntriesMemo(this.cache.dir);
    this.signatures = new EntrySignatureMemo(this.cache.dir);
    // a hit built for another layout, rank domain or halo is stale for this request
    this.cache.hooks.validate.tap('orch:compiler', (info) => this.recordedMismatch(info) ?? undefined);
    this.cache.hooks.wait.tap('orch:compiler', ({ moduleRel, entry }, owner, since) =>
      this.pipeline.print(`orch: waiting for ${moduleRel}:${entry}, being built by ${describeOwner(owner)}${since ? ` since ${since.toISOString()}` : ''}`),
    );
    for (const p of [...config.stages(), ...config.plugins]) p.apply(this);
    if (config.cache?.maxBytes !== undefined) new CacheLimitPlugin(config.cache.maxBytes).apply(this);
  }

  /** Module path relative to the project root (cache folder and messages). */
  moduleRel(file: string): string {
    const rel = path.relative(this.config.root, file);
    return rel.startsWith('..') || path.isAbsolute(rel) ? file.replace(/^[/\\]+/, '') : rel;
  }

  private async entryInputs(file: string, moduleRel: string, entry: string, req: BuildRequest): Promise<EntryInputs> {
    const { cxx, flags } = this.config.compiler;
    const mpi = this.config.compiler.mpi && req.mode !== 'python';
    const launcher = launcherKey(this.config.compiler.launcher);
    const { backend } = this.config;
    this.identity ??= backend.toolchainIdentity(cxx, flags).catch(() => 'unavailable');
    // The GPU generation a build targets is part of its key (python mode builds nothing).
    const resolveArch = req.mode !== 'python' ? backend.resolveArch : undefined;
    if (resolveArch) this.cudaArch ??= resolveArch(this.config.compiler.cudaArch);
    const cudaArch = resolveArch ? { cudaArch: await this.cudaArch! } : {};
    const tuned = this.pipeline.ignoreTuned ? undefined : tunedCodegen(this.cache.store.entryRoot(moduleRel, entry), this.config.preset.name);
    return {
      module: moduleRel,
      modulePath: path.resolve(file),
      entry,
      codepath: this.codepath,
      externals: req.externals,
      defines: req.defines,
      ...(req.closure ? { closure: req.closure } : {}),
      preset: this.config.preset.name,
      compiler: { cxx, identity: await this.identity, flags, ...cudaArch, ...(mpi ? { mpi: (await mpiToolchain()).identity } : {}), ...(launcher ? { launcher } : {}) },
      codegen: tuned ? { ...this.config.codegen, ...tuned } : this.config.codegen,
      ...(tuned ? { tuned } : {}),
      plugins: this.config.plugins.map((p) => ({ name: p.name, version: p.version ?? '0' })),
      // passes turned off and the debug checkers change the library as much as codegen options
      passes: this.config.passes,
      debug: this.config.debug,
      // where imports resolve decides which files are read; orch's own Python package is
      // left out: `orch` is a module the frontend knows, so that folder resolves nothing
      pythonPath: this.config.pythonPath.filter((p) => path.resolve(p) !== ORCH_PYTHON_PACKAGE),
      orch: orchVersion(),
      native: nativeHeadersHash(),
      ...(this.layout ? { layout: { domain: [...this.layout.domain], halo: this.layout.halo } } : {}),
    };
  }

  /** The entries of a module; remembered per module source so a hit parses nothing. */
  private entriesOf(file: string, compilation: Compilation): string[] {
    const source = readFileSync(file, 'utf8');
    const remembered = this.memo.read(file, source);
    if (remembered) return remembered;
    // missing or corrupted: parse, and rewrite it
    const names = moduleEntries(compilation.loader.load(file)).map((f) => f.name);
    this.memo.write(file, source, names);
    return names;
  }

  /** An entry's signature from its module; remembered with every file it was read from. */
  private signatureOf(file: string, entry: string, compilation: Compilation, remember: boolean): EntrySignature {
    const sig = entrySignature(compilation.loader, findEntry(compilation.loader.load(file), entry));
    if (remember) this.signatures.write(file, entry, sig, compilation.loader);
    return sig;
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
      const refs: EntryRef[] = [];
      for (const file of req.modules) {
        const moduleRel = this.moduleRel(file);
        let entries: string[];
        try {
          entries = req.entry ? [req.entry] : (req.entries?.[file] ?? this.entriesOf(file, compilation));
        } catch (e) {
          // its result carries the errors; they join `errors` with every other result's below
          const diags = toDiagnostics(e);
          refs.push({ module: file, moduleRel, entry: '*' });
          results.push({ module: file, moduleRel, entry: '*', status: 'error', errors: diags, warnings: [], durationS: 0, timings: {}, files: [...compilation.loader.dependencies(file).keys(), file] });
          continue;
        }
        for (const entry of entries) {
          refs.push({ module: file, moduleRel, entry });
          jobs.push(async () => {
            compilation.hooks.buildEntry.call({ module: file, moduleRel, entry });
            const r = await this.buildEntry(file, moduleRel, entry, req, compilation);
            results.push(r);
            compilation.hooks.finishEntry.call(r);
          });
        }
      }
      compilation.hooks.entries.call(refs);
      for (const r of results) compilation.hooks.finishEntry.call(r);
      await runLimited(jobs, Math.max(1, availableParallelism()));
    } catch (e) {
      this.hooks.failed.call(e as Error);
      throw e;
    }
    for (const r of results) errors.push(...r.errors);
    // a hit reads no module through the loader: its files come from the cache manifest
    const deps = new Set([...req.modules, ...compilation.fileDependencies, ...(this.config.files ?? []), ...nativeHeaderFiles()]);
    for (const r of results) for (const f of r.files) deps.add(f);
    const result: BuildResult = {
      entries: results.sort((a, b) => (a.moduleRel + a.entry).localeCompare(b.moduleRel + b.entry)),
      errors,
      durationS: (performance.now() - t0) / 1000,
      fileDependencies: [...deps].sort(),
      passTimes: compilation.passTimes,
    };
    await this.hooks.done.promise(result);
    return result;
  }

  private async buildEntry(file: string, moduleRel: string, entry: string, asked: BuildRequest, compilation: Compilation): Promise<EntryResult> {
    const t0 = performance.now();
    const base = { module: file, moduleRel, entry, warnings: [] as Diagnostic[], errors: [] as Diagnostic[], timings: {} as Record<string, number>, files: [file] };
    // what an entry that failed part-way read, so watch mode still sees its imports
    const readSoFar = () => [...new Set([file, ...compilation.loader.dependencies(file).keys()])];
    let req = asked;
    // an orchestrated component's closure names its class and carries its own values
    if (!asked.closure) {
      try {
        const check = (sig: EntrySignature) => {
          req = { ...asked, defines: entryDefines(sig, asked.defines) };
          if (sig.backend && asked.mode !== 'python') checkBackend(sig.name, sig.backend, { name: this.config.preset.name, backend: this.config.backend.name });
        };
        const remembered = this.signatures.read(file, entry);
        let checked = false;
        if (remembered) {
          try {
            check(remembered);
            checked = true;
          } catch {
            // checked again from the module itself, so the error comes from what this build read
          }
        }
        // Python mode builds nothing, so it leaves nothing in the cache either (as before the memo)
        if (!checked) check(this.signatureOf(file, entry, compilation, asked.mode !== 'python'));
      } catch (e) {
        return { ...base, status: 'error', errors: toDiagnostics(e), files: readSoFar(), durationS: (performance.now() - t0) / 1000 };
      }
    }
    const inputs = await this.entryInputs(file, moduleRel, entry, req);
    if (req.mode !== 'python') {
      let build: EntryBuild | undefined;
      const got = await this.cache.fetch(
        inputs,
        async (tx) => {
          build = this.newBuild(file, moduleRel, entry, req, inputs, tx);
          // a build mode run goes to the end of the table: the entry is built only once emitted
          await compilation.runEntry(build, 'emit');
          return { build, emitted: build.need('emitted', 'the compiler'), parsed: build.need('parsed', 'the compiler'), generated: build.need('generated', 'the compiler') };
        },
        { lookupOnly: req.mode === 'lookup', badEntries: req.badEntries },
      );
      const durationS = () => (performance.now() - t0) / 1000;
      if (got.status === 'hit') {
        const { key, dir, info } = got.hit;
        return {
          ...base,
          status: 'hit',
          reason: got.reason,
          key,
          dir,
          library: path.join(dir, info.library),
          symbol: info.symbol,
          binding: info.binding && path.join(dir, info.binding),
          iface: info.interface as EntryInterface,
          // cached warnings are replayed on a hit
          warnings: (info.warnings ?? []) as Diagnostic[],
          files: Object.keys(info.sources ?? {}),
          durationS: durationS(),
        };
      }
      if (got.status === 'miss') return { ...base, status: 'miss', reason: got.reason, durationS: durationS() };
      if (got.status === 'error') return { ...base, status: 'error', reason: got.reason, errors: toDiagnostics(got.error), files: readSoFar(), durationS: durationS(), timings: build?.timings ?? {} };
      const { build: built, emitted, parsed, generated } = got.value;
      return {
        ...base,
        status: 'built',
        reason: got.reason,
        key: got.key,
        dir: emitted.dir,
        library: emitted.library,
        symbol: generated.symbol,
        binding: generated.binding && path.join(emitted.dir, generated.binding),
        warnings: built.warnings,
        program: built.program,
        iface: entryInterface(built.program),
        files: [...parsed.files.keys()],
        durationS: durationS(),
        timings: built.timings,
      };
    }
    const build = this.newBuild(file, moduleRel, entry, req, inputs);
    let parsed;
    try {
      // python mode interprets the IR every optimizing pass produced; no native code
      await compilation.runEntry(build, this.pipeline.stopAfter ?? 'debugInsertion');
      parsed = build.need('parsed', 'the compiler');
    } catch (e) {
      return { ...base, status: 'error', errors: toDiagnostics(e), files: readSoFar(), durationS: (performance.now() - t0) / 1000 };
    }
    return { ...base, status: 'built', program: build.program, iface: entryInterface(build.program), files: [...parsed.files.keys()], durationS: (performance.now() - t0) / 1000, timings: build.timings };
  }

  /** `cache`: the entry's cache transaction; python mode builds none. */
  private newBuild(file: string, moduleRel: string, entry: string, req: BuildRequest, inputs: EntryInputs, cache?: EntryTransaction): EntryBuild {
    const layout = this.layout ? { codepath: this.codepath as CodePath, target: this.layout } : undefined;
    return new EntryBuild({ module: file, moduleRel, entry, externals: req.externals, defines: req.defines, closure: req.closure, inputs, codegen: inputs.codegen as CodegenOptions, cache, layout });
  }

  /**
   * What the entry's build info says it was built for, against what this compiler asks:
   * code path, layout, per-rank domain, preset and orch version (the key covers them; this
   * also catches cache folders copied between code paths or machines).
   */
  private recordedMismatch(info: BuildInfo): string | null {
    const built = info.inputs;
    if (built.codepath !== this.codepath) return `entry was built for code path ${built.codepath}, not ${this.codepath}`;
    if (built.preset !== this.config.preset.name) return `entry was built with preset ${built.preset}`;
    if (built.orch !== orchVersion()) return `entry was built by orch ${built.orch}`;
    const asked = this.layout;
    if (!!asked !== !!info.layout) return asked ? 'entry was built without a layout' : `entry was built for layout ${info.layout!.layout}`;
    if (asked && info.layout) {
      if (info.layout.domain.join('x') !== asked.domain.join('x')) return `entry was built for a per-rank domain of ${info.layout.domain.join('x')}, not ${asked.domain.join('x')}`;
      if (info.layout.halo !== asked.halo) return `entry was built for halo ${info.layout.halo}, not ${asked.halo}`;
      if (info.layout.codepath !== this.codepath) return `entry was built for code path ${info.layout.codepath}`;
    }
    return null;
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
