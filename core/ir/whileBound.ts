import type { Stmt } from './types.js';

/**
 * How many iterations a stencil's `while` loop may run before the run fails, in Python mode
 * and in compiled code alike (`codegen.maxWhileIterations`; part of the cache key as every
 * codegen option is). A loop that never ends would otherwise hang a compiled library.
 */
export const DEFAULT_MAX_WHILE_ITERATIONS = 10_000_000;

/** The message both backends report, at the loop's source line. */
export function whileLimitMessage(stencil: string, max: number): string {
  return `stencil ${stencil}: while loop did not terminate after ${max} iterations`;
}

export const WHILE_LIMIT_HINT = 'check the loop condition, or raise codegen.maxWhileIterations in orch.config.ts if the loop is just long';

/** Whether point statements hold a `while` loop (at any depth). */
export function hasWhileLoop(body: readonly Stmt[]): boolean {
  return body.some((s) => s.kind === 'while' || (s.kind === 'if' && (hasWhileLoop(s.then) || hasWhileLoop(s.else))) || (s.kind === 'region' && hasWhileLoop(s.body)));
}
