import { didYouMean } from '../diagnostics.js';
import { scopeName, type ClassInfo, type FunctionInfo, type ModuleScope } from './values.js';
import { classNotCallable, entryNotFound, entryNotUsable } from '../diagnostics/frontendErrors.js';

/** What `module.py:name` names: a function (program, stencil) or a program class. */
export type EntryInfo = FunctionInfo | ClassInfo;

export function hasComputation(fn: FunctionInfo): boolean {
  return fn.def.body.some((s) => s.t === 'with');
}

/** The buildable entries of a module: its programs (functions and classes), or else its stencils. */
export function moduleEntries(scope: ModuleScope): EntryInfo[] {
  const fns: FunctionInfo[] = [];
  const programs: EntryInfo[] = [];
  for (const [name, v] of scope.names) {
    if (v.k === 'function' && v.fn.module === scope && v.fn.name === name) {
      fns.push(v.fn);
      if (v.fn.kind === 'program') programs.push(v.fn);
    }
    if (v.k === 'class' && v.cls.module === scope && v.cls.name === name && v.cls.isProgram) programs.push(v.cls);
  }
  if (programs.length) return programs;
  return fns.filter((f) => f.kind === 'stencil' || (f.kind === 'plain' && hasComputation(f)));
}

export function findEntry(scope: ModuleScope, entry: string): EntryInfo {
  const v = scopeName(scope, entry);
  if (v?.k === 'opaque') {
    // imported, but the import did not resolve: say why, at the import
    throw entryNotUsable(entry, scope.file, v.why, v.loc);
  }
  if (v?.k === 'class') {
    if (!v.cls.methods.has('__call__')) {
      throw classNotCallable(entry, v.cls.def.loc);
    }
    return v.cls;
  }
  if (!v || v.k !== 'function') {
    const candidates = [...scope.names.entries()].filter(([, x]) => x.k === 'function' || x.k === 'lazy' || (x.k === 'class' && x.cls.isProgram)).map(([k]) => k);
    const guess = didYouMean(entry, candidates);
    throw entryNotFound(scope.file, entry, guess ? `did you mean '${guess}'?` : candidates.length ? `entries: ${candidates.join(', ')}` : 'define a stencil or a @program in the module');
  }
  return v.fn;
}
