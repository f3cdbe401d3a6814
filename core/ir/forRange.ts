import { evaluate } from './evaluate.js';
import type { PStmt } from './types.js';

/** A program `for` loop's range, where its bounds are integers known before the call. */
export interface ForRange {
  start: number;
  step: number;
  /** iterations, as Python's range gives them (0 when empty) */
  n: number;
}

/** The range of `s`, or undefined where a bound is not a compile-time integer or the step is 0. */
export function forRange(s: Extract<PStmt, { kind: 'for' }>): ForRange | undefined {
  const [start, stop, step] = [s.start, s.stop, s.step].map((e) => evaluate(e, {}));
  if (start === undefined || stop === undefined || step === undefined || step === 0) return undefined;
  if (![start, stop, step].every(Number.isInteger)) return undefined;
  return { start, step, n: Math.max(0, Math.ceil((stop - start) / step)) };
}
