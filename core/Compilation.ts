import { AsyncSeriesHook, SyncHook } from 'tapable';
import type { EntryResult } from './Compiler.js';
import { OrchError, OrchErrors, type Diagnostic } from './diagnostics.js';
import type { EntryBuild } from './EntryBuild.js';
import { printProgram } from './ir/print.js';
import { verifyProgram } from './ir/verify.js';
import type { ResolvedConfig } from './config/types.js';
import type { BuildCache } from './cache/BuildCache.js';
import { ModuleLoader } from './frontend/ModuleLoader.js';

export type SimplifyPhase = 1 | 2;

/** The pipeline stages in order (ARCHITECTURE §3). Hook names double as pass names. */
export const STAGES = ['parse', 'simplify1', 'regionExpansion', 'libraryExpansion', 'simplify2', 'pooling', 'debugInsertion', 'codegen', 'compile', 'analyze', 'emit'] as const;
export type StageName = (typeof STAGES)[number];

/** The hooks passes tap (the progress hooks are not instrumented). */
const PIPELINE_HOOKS = ['parse', 'simplify', 'regionExpansion', 'libraryExpansion', 'pooling', 'debugInsertion', 'codegen', 'compile', 'analyze', 'emit'] as const;

/** One entry (a program, or a stencil built directly) of one module. */
export interface EntryRef {
  /** Absolute path of the module. */
  module: string;
  /** Module path relative to the project root. */
  moduleRel: string;
  entry: string;
}

export interface PipelineOptions {
  /** Verify the IR after every pass. */
  verifyIR: boolean;
  /** Hook or tap names after which the IR is printed ('all' for every pass). */
  printIrAfter: string[];
  /** Collect per-pass timings. */
  timePasses: boolean;
  /** Stop after library expansion (python mode needs no native code). */
  stopAfter?: StageName;
  print: (text: string) => void;
}

/**
 * One build of a set of modules. Owns the module loader (each module is parsed once per
 * compilation), the diagnostics and the list of files read. Stage hooks receive one
 * `EntryBuild` at a time; built-in stages tap them at stage 0, so custom passes can run
 * before (< 0) or after (> 0) any built-in.
 */
export class Compilation {
  readonly hooks = Object.freeze({
    parse: new AsyncSeriesHook<[EntryBuild]>(['build']),
    simplify: new AsyncSeriesHook<[EntryBuild, SimplifyPhase]>(['build', 'phase']),
    regionExpansion: new AsyncSeriesHook<[EntryBuild]>(['build']),
    libraryExpansion: new AsyncSeriesHook<[EntryBuild]>(['build']),
    pooling: new AsyncSeriesHook<[EntryBuild]>(['build']),
    debugInsertion: new AsyncSeriesHook<[EntryBuild]>(['build']),
    codegen: new AsyncSeriesHook<[EntryBuild]>(['build']),
    compile: new AsyncSeriesHook<[EntryBuild]>(['build']),
    analyze: new AsyncSeriesHook<[EntryBuild]>(['build']),
    emit: new AsyncSeriesHook<[EntryBuild]>(['build']),
    // Progress (webpack's buildModule/succeedModule): what is built, and where each entry is.
    /** Every entry this compilation will look up, once they are known. */
    entries: new SyncHook<[EntryRef[]]>(['entries']),
    /** An entry's cache lookup starts. */
    buildEntry: new SyncHook<[EntryRef]>(['entry']),
    /** An entry that missed enters a pipeline stage. */
    stage: new SyncHook<[EntryBuild, StageName]>(['build', 'stage']),
    /** An entry is done: hit, built or failed. */
    finishEntry: new SyncHook<[EntryResult]>(['result']),
  });

  readonly loader: ModuleLoader;
  readonly diagnostics: Diagnostic[] = [];
  /** name -> total milliseconds, for --time-passes */
  readonly passTimes = new Map<string, number>();

  constructor(
    readonly config: ResolvedConfig,
    readonly cache: BuildCache,
    readonly options: PipelineOptions,
  ) {
    this.loader = new ModuleLoader(config.pythonPath);
    for (const name of PIPELINE_HOOKS) this.instrument(name, this.hooks[name] as AsyncSeriesHook<[EntryBuild, ...unknown[]]>);
  }

  /** Every file the compilation read (modules and their imports). */
  get fileDependencies(): Set<string> {
    return new Set(this.loader.filesRead.keys());
  }

  /**
   * Wraps every tap so an error names its plugin and hook, the IR is verified and
   * optionally printed after it, and its time is recorded.
   */
  private instrument(hookName: string, hook: AsyncSeriesHook<[EntryBuild, ...unknown[]]>): void {
    hook.intercept({
      register: (tap) => {
        const fn = tap.fn as (...a: unknown[]) => unknown;
        if (tap.type !== 'promise' && tap.type !== 'sync') return tap;
        const wrapped = async (...args: unknown[]) => {
          const build = args[0] as EntryBuild;
          const passName = hookName === 'simplify' ? `simplify${args[1] as number}` : hookName;
          const t0 = performance.now();
          try {
            await fn(...args);
          } catch (e) {
            throw attribute(e, tap.name, passName);
          }
          const dt = performance.now() - t0;
          const label = `${passName}:${tap.name}`;
          this.passTimes.set(label, (this.passTimes.get(label) ?? 0) + dt);
          build.timings[passName] = (build.timings[passName] ?? 0) + dt / 1000;
          if (build.program && this.options.verifyIR) {
            const problems = verifyProgram(build.program);
            if (problems.length) {
              throw new OrchError({
                code: 'E_IR_INVALID',
                severity: 'error',
                message: `IR does not verify after ${passName} (${tap.name}):\n  ${problems.slice(0, 10).join('\n  ')}`,
                plugin: tap.name,
                hook: passName,
                hint: 'this is a bug in the pass that ran last',
              });
            }
          }
          const pia = this.options.printIrAfter;
          if (build.program && (pia.includes('all') || pia.includes(passName) || pia.includes(hookName) || pia.includes(tap.name))) {
            this.options.print(`// IR after ${passName} (${tap.name}) of ${build.moduleRel}:${build.entry}\n${printProgram(build.program)}\n`);
          }
        };
        return { ...tap, type: 'promise', fn: wrapped };
      },
    });
  }

  /** Runs the pipeline on one entry. */
  async runEntry(build: EntryBuild, stopAfter?: StageName): Promise<void> {
    const stop = stopAfter ?? this.options.stopAfter;
    const steps: [StageName, () => Promise<void>][] = [
      ['parse', () => this.hooks.parse.promise(build)],
      ['simplify1', () => this.hooks.simplify.promise(build, 1)],
      ['regionExpansion', () => this.hooks.regionExpansion.promise(build)],
      ['libraryExpansion', () => this.hooks.libraryExpansion.promise(build)],
      ['simplify2', () => this.hooks.simplify.promise(build, 2)],
      ['pooling', () => this.hooks.pooling.promise(build)],
      ['debugInsertion', () => this.hooks.debugInsertion.promise(build)],
      ['codegen', () => this.hooks.codegen.promise(build)],
      ['compile', () => this.hooks.compile.promise(build)],
      ['analyze', () => this.hooks.analyze.promise(build)],
      ['emit', () => this.hooks.emit.promise(build)],
    ];
    for (const [name, step] of steps) {
      this.hooks.stage.call(build, name);
      await step();
      if (name === stop) break;
    }
  }
}

/** Attaches the plugin and hook to an error raised inside a tap. */
function attribute(e: unknown, plugin: string, hook: string): unknown {
  if (e instanceof OrchError) {
    // user errors from built-in stages already point at the source; name the plugin only if custom
    if (!e.diagnostic.plugin && !plugin.startsWith('orch:')) {
      e.diagnostic.plugin = plugin;
      e.diagnostic.hook = hook;
    }
    return e;
  }
  if (e instanceof OrchErrors) return e;
  const err = e instanceof Error ? e : new Error(String(e));
  return new OrchError({
    code: 'E_PLUGIN',
    severity: 'error',
    message: `plugin '${plugin}' threw in hook '${hook}': ${err.message}`,
    plugin,
    hook,
    hint: plugin.startsWith('orch:') ? 'this is a bug in orch; please report it with the module that triggers it' : `fix the plugin '${plugin}'`,
    detail: err.stack,
  });
}
