import { didYouMean } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import type { EntryInfo } from './entries.js';
import type { ModuleLoader } from './ModuleLoader.js';
import type { FunctionInfo } from './values.js';
import { defineNotUsable } from '../diagnostics/usageErrors.js';

/** A compile-time argument of an entry, with its default when it has a number or boolean one. */
export interface CompileTimeParam {
  name: string;
  default?: number | boolean;
}

/**
 * What the cache key needs of an entry before anything is built: its compile-time
 * arguments (a program's `compiletime(...)` parameters, a program class's constructor
 * and `__call__` compile-time arguments) with their defaults, and a stencil's `backend=`.
 */
export interface EntrySignature {
  name: string;
  kind: 'stencil' | 'program';
  compiletime: CompileTimeParam[];
  /** Where the entry is defined (its name). */
  loc: SourceLoc;
  backend?: FunctionInfo['backend'];
}

export function entrySignature(loader: ModuleLoader, entry: EntryInfo): EntrySignature {
  const compiletime: CompileTimeParam[] = [];
  const add = (fn: FunctionInfo, onlyAnnotated: boolean) => {
    for (const p of fn.def.params) {
      if (p.name === 'self' || p.kind === 'varargs' || p.kind === 'kwargs') continue;
      if (onlyAnnotated && (!p.annotation || loader.eval(p.annotation, fn.module).k !== 'compiletime')) continue;
      const d = p.default && loader.eval(p.default, fn.module);
      compiletime.push({ name: p.name, ...(d && (d.k === 'num' || d.k === 'bool') ? { default: d.value } : {}) });
    }
  };
  if ('methods' in entry) {
    // every constructor argument of the entry class is a compile-time value
    const init = entry.methods.get('__init__');
    if (init) add(init, false);
    const call = entry.methods.get('__call__');
    if (call) add(call, true);
    return { name: entry.name, kind: 'program', compiletime, loc: entry.def.loc };
  }
  if (entry.kind === 'program') add(entry, true);
  return { name: entry.name, kind: entry.kind === 'program' ? 'program' : 'stencil', compiletime, loc: entry.def.nameLoc, ...(entry.backend ? { backend: entry.backend } : {}) };
}

/**
 * The defines an entry is built (and keyed) with: the given ones over the defaults, so a
 * program built without `--define n=3` has the key the Python package gives it (Python
 * applies the defaults before it asks). A name the entry does not take is a usage error.
 */
export function entryDefines(sig: EntrySignature, given: Record<string, number | boolean>): Record<string, number | boolean> {
  const names = sig.compiletime.map((p) => p.name);
  for (const k of Object.keys(given)) {
    if (names.includes(k)) continue;
    const guess = didYouMean(k, names);
    const what = sig.kind === 'stencil' ? `stencil '${sig.name}' takes no compile-time arguments` : `program '${sig.name}' has no compile-time argument '${k}'`;
    throw defineNotUsable(k, what, sig.loc, sig.name.length, guess ? `did you mean '${guess}'?` : names.length ? `its compile-time arguments are ${names.join(', ')}` : sig.kind === 'stencil' ? 'pass externals with --externals instead, or drop --define' : 'drop --define');
  }
  const out: Record<string, number | boolean> = {};
  for (const p of sig.compiletime) {
    const v = given[p.name] ?? p.default;
    if (v !== undefined) out[p.name] = v;
  }
  return out;
}
