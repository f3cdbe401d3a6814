import type { EntryRef, StageName } from './Compilation.js';
import type { Compiler, EntryResult } from './Compiler.js';
import type { OrchPlugin } from './config/types.js';

/** Where a build stands, as the progress hooks report it. */
export interface ProgressState {
  total: number;
  done: number;
  hits: number;
  built: number;
  errors: number;
  /** Entries being looked up or built, with their current stage ('lookup' before the pipeline). */
  active: { ref: EntryRef; stage: StageName | 'lookup'; since: number }[];
  startedAt: number;
}

export type ProgressEvent = { type: 'start' } | { type: 'stage' } | { type: 'finish'; result: EntryResult };

/**
 * Follows a build through the compilation's progress hooks (entries, buildEntry, stage,
 * finishEntry), after webpack's ProgressPlugin, and hands every change to a display.
 * Not a pipeline stage: the CLI applies it, and it is not part of any cache key.
 */
export class ProgressPlugin implements OrchPlugin {
  readonly name = 'orch:progress';

  constructor(private readonly onProgress: (event: ProgressEvent, state: ProgressState) => void) {}

  apply(compiler: Compiler): void {
    compiler.hooks.compilation.tap(this.name, (compilation) => {
      const state: ProgressState = { total: 0, done: 0, hits: 0, built: 0, errors: 0, active: [], startedAt: performance.now() };
      const key = (r: EntryRef) => `${r.module}\0${r.entry}`;
      const active = new Map<string, ProgressState['active'][number]>();
      const snapshot = (): ProgressState => ({ ...state, active: [...active.values()] });
      compilation.hooks.entries.tap(this.name, (refs) => {
        state.total = refs.length;
        this.onProgress({ type: 'start' }, snapshot());
      });
      compilation.hooks.buildEntry.tap(this.name, (ref) => {
        active.set(key(ref), { ref, stage: 'lookup', since: performance.now() });
        this.onProgress({ type: 'stage' }, snapshot());
      });
      compilation.hooks.stage.tap(this.name, (build, stage) => {
        const a = active.get(key(build));
        if (a) {
          a.stage = stage;
          a.since = performance.now();
        }
        this.onProgress({ type: 'stage' }, snapshot());
      });
      compilation.hooks.finishEntry.tap(this.name, (result) => {
        active.delete(key(result));
        state.done++;
        if (result.status === 'hit') state.hits++;
        else if (result.status === 'built') state.built++;
        else if (result.status === 'error') state.errors++;
        this.onProgress({ type: 'finish', result }, snapshot());
      });
    });
  }
}
