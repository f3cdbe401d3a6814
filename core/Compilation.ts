import { AsyncSeriesHook, SyncHook } from 'tapable';
import type { EntryResult } from './Compiler.js';
import { OrchError, OrchErrors } from './diagnostics.js';
import { invalidIR, pluginThrew } from './diagnostics/codes.js';
import type { EntryBuild } from './EntryBuild.js';
import { printProgram } from './ir/print.js';
import { verifyProgram } from './ir/verify.js';
import type { ResolvedConfig } from './config/types.js';
import type { EntryCache } from './cache/EntryCache.js';
import { ModuleLoader } from './frontend/ModuleLoader.js';

import { PIPELINE, type StageName } from './pipeline.js';

export { STAGES, type StageName } from './pipeline.js';

/** One entry (a program, or a stencil built directly) of one module. */
export interface EntryRef {
  /** Absolute path of the module. */
  module: string;
  /** Module path relative to the project root. */
  moduleRel: string;
  entry: string;
}

export interface PipelineOptions {
  /** Verify the IR after every pass (otherwise after every stage that rewrites it). */
  verifyIR: boolean;
  /** Pass, tap or stage names after which the IR is printed ('all' for every pass). */
  printIrAfter: string[];
  /** Collect per-pass timings. */
  timePasses: boolean;
  /** Build every entry with the config's codegen options as they are, ignoring schedules `orch tune --write-cache` recorded (the tuner's own candidates). */
  ignoreTuned?: boolean;
  /** Stop after this stage (python mode needs no native code). */
  stopAfter?: StageName;
  print: (text: string) => void;
}

type StageHooks = { readonly [S in StageName]: AsyncSeriesHook<[EntryBuild]> };

/** The pass a tap is: a built-in's tap name without its `orch:` prefix, a custom plugin's name as is. */
export function passName(tapName: string): string {
  return tapName.startsWith('orch:') ? tapName.slice('orch:'.length) : tapName;
}

/**
 * One build of a set of modules. Owns the module loader (each module is parsed once per
 * compilation) and the list of files read. Its stage hooks come from the pipeline table
 * (pipeline.ts) and receive one `EntryBuild` at a time; each pass is its own tap, ordered
 * by its tap stage number (built-in stages tap at 0, so custom passes can run before
 * (< 0) or after (> 0) any built-in).
 */
export class Compilation {
  readonly hooks = Object.freeze({
    ...(Object.fromEntries(PIPELINE.map((s) => [s.name, new AsyncSeriesHook<[EntryBuild]>(['build'])])) as StageHooks),
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
  /** `stage:tap` -> total milliseconds, for --time-passes */
  readonly passTimes = new Map<string, number>();

  constructor(
    readonly config: ResolvedConfig,
    readonly cache: EntryCache,
    readonly options: PipelineOptions,
  ) {
    this.loader = new ModuleLoader(config.pythonPath);
    for (const stage of PIPELINE) this.instrument(stage.name, stage.rewritesIR);
  }

  /** Every file the compilation read (modules and their imports). */
  get fileDependencies(): Set<string> {
    return new Set(this.loader.filesRead.keys());
  }

  /**
   * The one interceptor: wraps every tap so an error names its plugin and stage, its time
   * is recorded under its own name, and (with verifyIR) the IR is verified and
   * (with --print-ir-after) printed after it.
   */
  private instrument(stage: StageName, rewritesIR: boolean): void {
    this.hooks[stage].intercept({
      register: (tap) => {
        const fn = tap.fn as (build: EntryBuild) => unknown;
        if (tap.type !== 'promise' && tap.type !== 'sync') return tap;
        const pass = passName(tap.name);
        const wrapped = async (build: EntryBuild) => {
          const t0 = performance.now();
          try {
            await fn(build);
          } catch (e) {
            throw attribute(e, tap.name, stage);
          }
          const dt = performance.now() - t0;
          const label = `${stage}:${tap.name}`;
          this.passTimes.set(label, (this.passTimes.get(label) ?? 0) + dt);
          build.timings[stage] = (build.timings[stage] ?? 0) + dt / 1000;
          if (!build.hasProgram || !rewritesIR) return;
          if (this.options.verifyIR) this.verify(build, `${pass} (${tap.name}${pass === stage ? '' : ` in ${stage}`})`, tap.name, stage, 'this is a bug in the pass that ran last');
          const pia = this.options.printIrAfter;
          if (pia.includes('all') || pia.includes(pass) || pia.includes(tap.name)) {
            this.options.print(`// IR after ${pass} (${tap.name}${pass === stage ? '' : ` in ${stage}`}) of ${build.moduleRel}:${build.entry}\n${printProgram(build.program)}\n`);
          }
        };
        return { ...tap, type: 'promise', fn: wrapped };
      },
    });
  }

  private verify(build: EntryBuild, after: string, plugin: string | undefined, stage: StageName, hint: string): void {
    const problems = verifyProgram(build.program);
    if (problems.length) throw invalidIR(after, problems, { plugin, hook: stage, hint });
  }

  /** Runs the pipeline table on one entry, up to `stopAfter`. */
  async runEntry(build: EntryBuild, stopAfter?: StageName): Promise<void> {
    const stop = stopAfter ?? this.options.stopAfter;
    for (const { name, rewritesIR } of PIPELINE) {
      this.hooks.stage.call(build, name);
      await this.hooks[name].promise(build);
      if (rewritesIR && build.hasProgram) this.afterStage(build, name);
      if (name === stop) break;
    }
  }

  /** Without verifyIR, every stage that rewrites the IR must still leave IR that verifies. */
  private afterStage(build: EntryBuild, stage: StageName): void {
    if (!this.options.verifyIR) this.verify(build, `stage ${stage}`, undefined, stage, `a pass in ${stage} produced invalid IR; run with --verify-ir to find it, and --print-ir-after=all to see its IR`);
    const pia = this.options.printIrAfter;
    // a stage named like one of its passes (parse, pooling, ...) was printed by the interceptor
    const named = pia.includes(stage) || (pia.includes('simplify') && stage.startsWith('simplify'));
    if (named && !this.hooks[stage].taps.some((t) => passName(t.name) === stage)) {
      this.options.print(`// IR after ${stage} of ${build.moduleRel}:${build.entry}\n${printProgram(build.program)}\n`);
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
  return pluginThrew(plugin, hook, e instanceof Error ? e : new Error(String(e)));
}
