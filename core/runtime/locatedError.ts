import type { Diagnostic } from '../diagnostics.js';
import { isCode, type Code } from '../diagnostics/codes.js';
import type { SourceLoc } from '../ir/types.js';

/**
 * How a compiled library reports a user error it finds while running (an interval that is
 * empty for the call's domain, a read at a variable K offset that leaves its array): as
 * `file:line:col: error CODE: message` and `hint: ...` on the next line in its error
 * buffer, the shape `formatDiagnostic` prints and C users can read. `parseLocatedError`
 * turns it back into the diagnostic the interpreter raises for the same error, so both
 * backends report the same thing.
 */

export function locatedErrorPrefix(code: string, loc: SourceLoc): string {
  return `${loc.file}:${loc.line}:${loc.col}: error ${code}: `;
}

export function locatedErrorHint(hint: string): string {
  return `\nhint: ${hint}`;
}

const LOCATED = /^(.+):(\d+):(\d+): error (E_[A-Z0-9_]+): ([^\n]*)(?:\nhint: ([\s\S]*))?$/;

export function parseLocatedError(text: string): Diagnostic | undefined {
  const m = LOCATED.exec(text);
  // a code this orch does not know is not one of its messages
  if (!m || !isCode(m[4])) return undefined;
  return {
    code: m[4] as Code,
    severity: 'error',
    message: m[5],
    loc: { file: m[1], line: Number(m[2]), col: Number(m[3]) },
    ...(m[6] !== undefined ? { hint: m[6] } : {}),
  };
}

/** The hint of a read at a variable K offset that leaves its array, from either backend. */
/** The hint of a data index computed at run time that leaves the data dimension it indexes. */
export const DATA_INDEX_HINT = 'the computed data index leaves the data dimension: bound it (with min/max) to the extent of the Field[(dtype, (n, ...))] or GlobalTable type';
export const VARIABLE_K_HINT = 'the computed level leaves the array: bound the offset (with min/max, or in the loop condition) or allocate more levels';

/** The hint of a launch whose domain and origin do not fit an array, from either backend. */
export const OUT_OF_BOUNDS_HINT = "the call's domain and origin do not fit this array: enlarge the array, or shrink the domain (or move the origin) at this call";
