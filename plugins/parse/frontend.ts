import { didYouMean, fail } from '../../core/diagnostics.js';
import type { Program, SourceLoc, StencilDef } from '../../core/ir/types.js';
import type { ModuleLoader } from './ModuleLoader.js';
import type { LayoutContext } from './layoutExternals.js';
import { ProgramLowering, stencilEntryProgram } from './ProgramLowering.js';
import { StencilLowering } from './StencilLowering.js';
import type { Closure } from './closure.js';
import { scopeName, type ClassInfo, type FunctionInfo, type ModuleScope, type Value } from './values.js';

/** What `module.py:name` names: a function (program, stencil) or a program class. */
export type EntryInfo = FunctionInfo | ClassInfo;

export interface EntryOptions {
  /** Externals for stencil entries (and for every stencil a program calls). */
  externals: Record<string, Value>;
  /** Compile-time program arguments. */
  defines: Record<string, number | boolean>;
  /** A layout build's code path and rank grid (region externals per stencil call). */
  layout?: LayoutContext | null;
  /** An orchestrated component's resolved closure (the entry is its class). */
  closure?: Closure | null;
}

function hasComputation(fn: FunctionInfo): boolean {
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

/** Lowers one entry (a @program, or a stencil called directly) to program IR. */
export function lowerEntry(loader: ModuleLoader, fn: EntryInfo | null, opts: EntryOptions): Program {
  // one lowering per stencil and distinct set of per-call externals
  const stencilCache = new Map<FunctionInfo, Map<string, StencilDef>>();
  // `ownExternals`: those a stencil object of a closure was built with (they win over the definition's)
  const resolve = (sfn: FunctionInfo, _loc: SourceLoc, callExternals: Record<string, Value> = {}, ownExternals: Record<string, Value> = {}): StencilDef => {
    let defs = stencilCache.get(sfn);
    if (!defs) stencilCache.set(sfn, (defs = new Map()));
    // an unknown value only matters if used, and then its first lowering reports it
    const key = JSON.stringify([callExternals, ownExternals], (_k, v: unknown) => ((v as Value | null)?.k === 'opaque' ? 'opaque' : v));
    let def = defs.get(key);
    if (!def) {
      def = new StencilLowering(sfn, { ...callExternals, ...sfn.externals, ...ownExternals, ...opts.externals }, loader).lower();
      defs.set(key, def);
    }
    return def;
  };
  if (opts.closure) return new ProgramLowering(fn ?? ({} as EntryInfo), opts.defines, loader, resolve, opts.layout ?? null, opts.closure).lower();
  if (!fn) throw new Error('lowerEntry: no entry and no closure');
  if ('methods' in fn || fn.kind === 'program') return new ProgramLowering(fn, opts.defines, loader, resolve, opts.layout ?? null).lower();
  if (fn.kind === 'gtfunction' || fn.kind === 'callback') {
    fail('E_ENTRY_KIND', `'${fn.name}' is a ${fn.kind === 'gtfunction' ? '@gtscript.function helper' : '@callback'}, not a stencil or program`, {
      loc: fn.def.nameLoc,
      hint: 'run a stencil or a @program',
    });
  }
  if (!hasComputation(fn)) {
    fail('E_ENTRY_KIND', `'${fn.name}' is neither a stencil (no \`with computation\`) nor a @program`, { loc: fn.def.nameLoc, hint: 'decorate programs with @program' });
  }
  return stencilEntryProgram(resolve(fn, fn.def.nameLoc));
}
