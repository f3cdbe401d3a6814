import { formatDiagnostic, OrchError, OrchErrors } from '../core/diagnostics.js';
export { didYouMean } from '../core/diagnostics.js';
export { unknownEnvMode } from '../core/diagnostics/usageErrors.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { painterFor } from './colour.js';

/** The exit status of a command that reported `errors`: 2 when every one is a usage error (a value given on the command line), else 1. */
export function exitStatus(errors: readonly Diagnostic[]): number {
  if (!errors.length) return 0;
  return errors.every((d) => d.code.startsWith('E_USAGE')) ? 2 : 1;
}

/**
 * How a command that threw ends the process: user errors print their diagnostics and
 * exit 1 (2 for usage errors); anything else is orch's own bug, exit 3.
 */
export function exitOnError(e: unknown, verbose: boolean): never {
  if (e instanceof OrchError) {
    printDiagnostics([e.diagnostic], verbose);
    process.exit(e.diagnostic.code.startsWith('E_USAGE') ? 2 : 1);
  }
  if (e instanceof OrchErrors) {
    printDiagnostics(e.diagnostics, verbose);
    process.exit(1);
  }
  process.stderr.write(`orch: internal error (please report): ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(3);
}

/** Prints each distinct diagnostic once (modules that import one broken module share its error). */
export function printDiagnostics(diags: Diagnostic[], verbose = false): void {
  const seen = new Set<string>();
  for (const d of diags) {
    const text = formatDiagnostic(d, { verbose });
    if (seen.has(text)) continue;
    seen.add(text);
    const paint = painterFor(process.stderr);
    process.stderr.write(`${paint ? formatDiagnostic(d, { verbose, paint }) : text}\n\n`);
  }
}
