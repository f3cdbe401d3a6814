import { readFileSync } from 'node:fs';
import type { Diagnostic } from '../core/diagnostics.js';
import { noEntriesToBuild } from '../core/diagnostics/frontendErrors.js';

/**
 * The error for a module named on the command line that holds no stencil or program: a
 * build of it would do nothing, so say what the module holds instead (functions that are
 * not entries, names it imports, e.g. a stencil defined elsewhere) and where to look.
 * A line scan is enough here: the frontend found no entry, this only describes the file.
 */
export function noEntriesError(file: string, shown: string): Diagnostic {
  const lines = readFileSync(file, 'utf8').split(/\r?\n/);
  const functions: string[] = [];
  const imports: string[] = [];
  for (const line of lines) {
    const def = /^def\s+([A-Za-z_]\w*)/.exec(line);
    if (def) functions.push(def[1]);
    const from = /^from\s+(\S+)\s+import\s+\(?([^)#]+)/.exec(line);
    if (from && !/^(gt4py|ndsl|orch|numpy|__future__)\b/.test(from[1])) imports.push(...from[2].split(',').map((n) => `${n.trim().split(/\s+as\s+/)[0]} (from ${from[1]})`).filter((n) => !n.startsWith(' ')));
  }
  const found = [
    functions.length ? `${functions.length > 1 ? 'functions' : 'a function'} ${functions.join(', ')} that ${functions.length > 1 ? 'are' : 'is'} not a stencil or program` : '',
    imports.length ? `the import${imports.length > 1 ? 's' : ''} ${imports.join(', ')}` : '',
  ].filter(Boolean);
  const imported = imports.length ? imports[0].replace(/ \(from (.*)\)$/, '').trim() : '';
  const from = imports.length ? /\(from (.*)\)$/.exec(imports[0])![1] : '';
  return noEntriesToBuild(shown, found, file, imports.length ? { imported, module: from } : undefined).diagnostic;
}
