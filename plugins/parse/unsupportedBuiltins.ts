import type { SourceLoc } from '../../core/ir/types.js';
import { notGtscriptBuiltin } from '../../core/diagnostics/frontendErrors.js';

/**
 * Python, numpy and math functions that are not gtscript builtins, with what to write
 * instead. GT4Py rejects them in stencils; so does orch, saying what works.
 */
const INSTEAD: Record<string, string> = {
  rint: 'round half to even with round(x), or half away from zero with round_away_from_zero(x)',
  around: 'round half to even with round(x), or half away from zero with round_away_from_zero(x)',
  clip: 'clip with min(max(x, lo), hi)',
  where: 'select with a conditional expression: a if cond else b',
  sign: 'take the sign with a conditional expression: 1.0 if x > 0.0 else (-1.0 if x < 0.0 else 0.0)',
  square: 'square with x * x or x ** 2',
  hypot: 'write sqrt(x * x + y * y)',
  log2: 'write log(x) / log(2.0)',
  exp2: 'write 2.0 ** x',
  fmod: 'use mod(x, y) or x % y (note: Python modulo takes the sign of y)',
  len: 'sizes are not available inside stencils; pass them as scalar arguments or externals',
  range: 'stencils have no for loops: iterate over K with computation(FORWARD/BACKWARD), or use a while loop',
  print: 'stencils cannot print; write the value to a field and inspect it after the call',
  int: 'convert with int32(x) / int64(x) from numpy, or floor/trunc',
  float: 'convert with float64(x) from numpy',
  sum: 'accumulate in a computation(FORWARD) over K, or add the terms explicitly',
};

const SUPPORTED =
  'abs, min, max, mod, sqrt, exp, log, log10, pow, sin, cos, tan, arcsin, arccos, arctan, arctan2, sinh, cosh, tanh, arcsinh, arccosh, arctanh, floor, ceil, trunc, isnan, isinf, isfinite, erf, erfc, gamma, cbrt, round, round_away_from_zero';

/** Fails with E_UNSUPPORTED_BUILTIN for a call of `name` (written `spelled`) at `loc`. */
export function rejectBuiltin(name: string, spelled: string, loc: SourceLoc): never {
  const instead = INSTEAD[name];
  throw notGtscriptBuiltin(spelled, instead, SUPPORTED, loc, spelled.length);
}
