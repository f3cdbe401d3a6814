import type { Compilation } from './Compilation.js';
import type { Compiler } from './Compiler.js';
import type { EntryBuild } from './EntryBuild.js';
import { BUILTIN_STAGE, type StageName } from './pipeline.js';

/**
 * Taps `fn` onto a stage hook of every compilation the compiler creates, as the pass
 * `name` at tap stage `order` (built-ins at 0; lower runs first).
 */
export function tapStage(compiler: Compiler, stage: StageName, name: string, fn: (build: EntryBuild, compilation: Compilation) => void | Promise<void>, order = BUILTIN_STAGE): void {
  compiler.hooks.compilation.tap(name, (compilation) => {
    compilation.hooks[stage].tapPromise({ name, stage: order }, async (build) => fn(build, compilation));
  });
}
