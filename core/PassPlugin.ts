import type { Compilation } from './Compilation.js';
import type { Compiler } from './Compiler.js';
import type { OrchPlugin } from './config/types.js';
import type { EntryBuild } from './EntryBuild.js';
import type { Program } from './ir/types.js';
import { stagesNamed, type StageName } from './pipeline.js';
import { tapStage } from './stagePlugin.js';

export interface PassOptions {
  /** Shown in errors raised by the pass, in --time-passes and --print-ir-after=<name>. */
  name: string;
  /** Part of every cache key: bump it whenever the pass's output changes. */
  version?: string;
  /** The pipeline stage to tap ('simplify': both simplify stages, or the one `phase` names). */
  hook: StageName | 'simplify';
  /**
   * Order among the stage's taps: built-in stages tap at 0 (the simplify passes at 0, 10,
   * 20, …), so a negative stage runs before the built-ins and a larger one after them
   * (default 100: after).
   */
  stage?: number;
  /** With hook 'simplify': run in this phase only (1: before region expansion, 2: after library expansion). */
  phase?: 1 | 2;
  /**
   * Rewrites one entry's program IR. Return a new program (or mutate and return nothing).
   * The IR must verify afterwards; with verifyIR on, orch checks it after every pass.
   */
  run(program: Program, build: EntryBuild, compilation: Compilation): Program | void | Promise<Program | void>;
}

/**
 * A custom pass as a plugin: taps one pipeline stage at a tap stage number, and is part
 * of the cache key by name and version.
 *
 *   new PassPlugin({ name: 'my-pass', hook: 'libraryExpansion', stage: 10, run: (program) => rewrite(program) })
 */
export class PassPlugin implements OrchPlugin {
  readonly name: string;
  readonly version: string;

  constructor(readonly pass: PassOptions) {
    this.name = pass.name;
    this.version = pass.version ?? '0';
  }

  apply(compiler: Compiler): void {
    const { hook, stage = 100, phase, run } = this.pass;
    const stages = hook === 'simplify' && phase ? [`simplify${phase}` as StageName] : stagesNamed(hook);
    for (const s of stages) {
      tapStage(
        compiler,
        s,
        this.name,
        async (build, compilation) => {
          const out = await run(build.program, build, compilation);
          if (out) build.program = out;
        },
        stage,
      );
    }
  }
}
