import type { Compilation, SimplifyPhase } from './Compilation.js';
import type { Compiler } from './Compiler.js';
import type { EntryBuild } from './EntryBuild.js';
import { OrchError } from './diagnostics.js';
import { verifyProgram } from './ir/verify.js';

/** The pipeline hooks of a Compilation that take one EntryBuild (simplify also takes its phase). */
export type StageHook = 'parse' | 'regionExpansion' | 'libraryExpansion' | 'pooling' | 'debugInsertion' | 'codegen' | 'compile' | 'analyze' | 'emit';

/** Built-in stages tap at this stage number; custom passes use others to run before or after. */
export const BUILTIN_STAGE = 0;

/** Taps `fn` onto a stage hook of every compilation the compiler creates. */
export function tapStage(compiler: Compiler, hook: StageHook, name: string, fn: (build: EntryBuild, compilation: Compilation) => void | Promise<void>, stage = BUILTIN_STAGE): void {
  compiler.hooks.compilation.tap(name, (compilation) => {
    compilation.hooks[hook].tapPromise({ name, stage }, async (build) => fn(build, compilation));
  });
}

export function tapSimplify(compiler: Compiler, name: string, fn: (build: EntryBuild, phase: SimplifyPhase, compilation: Compilation) => void | Promise<void>, stage = BUILTIN_STAGE): void {
  compiler.hooks.compilation.tap(name, (compilation) => {
    compilation.hooks.simplify.tapPromise({ name, stage }, async (build, phase) => fn(build, phase, compilation));
  });
}

/** Fails when the IR of `build` does not verify (stages with nothing to change yet do this). */
export function requireValidIR(build: EntryBuild, pass: string): void {
  if (!build.program) return;
  const problems = verifyProgram(build.program);
  if (problems.length) {
    throw new OrchError({
      code: 'E_IR_INVALID',
      severity: 'error',
      message: `IR does not verify before ${pass}:\n  ${problems.slice(0, 10).join('\n  ')}`,
      hint: 'a pass before this one produced invalid IR; run with --print-ir-after=all to find it',
    });
  }
}
