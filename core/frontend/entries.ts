import { didYouMean, fail } from '../diagnostics.js';
import { scopeName, type ClassInfo, type FunctionInfo, type ModuleScope } from './values.js';

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
    fail('E_ENTRY_NOT_FOUND', `'${entry}' in ${scope.file} cannot be used: ${v.why}`, {
      loc: v.loc,
      hint: 'add the folder holding that package to pythonPath in orch.config.ts or to PYTHONPATH',
    });
  }
  if (v?.k === 'class') {
    if (!v.cls.methods.has('__call__')) {
      fail('E_ENTRY_KIND', `class '${entry}' has no __call__, so it is not a program`, { loc: v.cls.def.loc, hint: 'a program class stores stencils on self in __init__ and runs them in __call__' });
    }
    return v.cls;
  }
  if (!v || v.k !== 'function') {
    const candidates = [...scope.names.entries()].filter(([, x]) => x.k === 'function' || x.k === 'lazy' || (x.k === 'class' && x.cls.isProgram)).map(([k]) => k);
    const guess = didYouMean(entry, candidates);
    fail('E_ENTRY_NOT_FOUND', `${scope.file} has no stencil or program named '${entry}'`, {
      hint: guess ? `did you mean '${guess}'?` : candidates.length ? `entries: ${candidates.join(', ')}` : 'define a stencil or a @program in the module',
    });
  }
  return v.fn;
}
