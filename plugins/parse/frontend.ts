import { didYouMean, fail } from '../../core/diagnostics.js';
import type { Program, SourceLoc, StencilDef } from '../../core/ir/types.js';
import type { ModuleLoader } from './ModuleLoader.js';
import { ProgramLowering, stencilEntryProgram } from './ProgramLowering.js';
import { StencilLowering } from './StencilLowering.js';
import { scopeName, type FunctionInfo, type ModuleScope, type Value } from './values.js';

export interface EntryOptions {
  /** Externals for stencil entries (and for every stencil a program calls). */
  externals: Record<string, Value>;
  /** Compile-time program arguments. */
  defines: Record<string, number | boolean>;
}

function hasComputation(fn: FunctionInfo): boolean {
  return fn.def.body.some((s) => s.t === 'with');
}

/** The buildable entries of a module: its programs, or else its stencils. */
export function moduleEntries(scope: ModuleScope): FunctionInfo[] {
  const fns: FunctionInfo[] = [];
  for (const [name, v] of scope.names) {
    if (v.k === 'function' && v.fn.module === scope && v.fn.name === name) fns.push(v.fn);
  }
  const programs = fns.filter((f) => f.kind === 'program');
  if (programs.length) return programs;
  return fns.filter((f) => f.kind === 'stencil' || (f.kind === 'plain' && hasComputation(f)));
}

export function findEntry(scope: ModuleScope, entry: string): FunctionInfo {
  const v = scopeName(scope, entry);
  if (v?.k === 'opaque') {
    // imported, but the import did not resolve: say why, at the import
    fail('E_ENTRY_NOT_FOUND', `'${entry}' in ${scope.file} cannot be used: ${v.why}`, {
      loc: v.loc,
      hint: 'add the folder holding that package to pythonPath in orch.config.ts or to PYTHONPATH',
    });
  }
  if (!v || v.k !== 'function') {
    const candidates = [...scope.names.entries()].filter(([, x]) => x.k === 'function' || x.k === 'lazy').map(([k]) => k);
    const guess = didYouMean(entry, candidates);
    fail('E_ENTRY_NOT_FOUND', `${scope.file} has no stencil or program named '${entry}'`, {
      hint: guess ? `did you mean '${guess}'?` : candidates.length ? `entries: ${candidates.join(', ')}` : 'define a stencil or a @program in the module',
    });
  }
  return v.fn;
}

/** Lowers one entry (a @program, or a stencil called directly) to program IR. */
export function lowerEntry(loader: ModuleLoader, fn: FunctionInfo, opts: EntryOptions): Program {
  const stencilCache = new Map<FunctionInfo, StencilDef>();
  const resolve = (sfn: FunctionInfo, _loc: SourceLoc): StencilDef => {
    let def = stencilCache.get(sfn);
    if (!def) {
      def = new StencilLowering(sfn, { ...sfn.externals, ...opts.externals }, loader).lower();
      stencilCache.set(sfn, def);
    }
    return def;
  };
  if (fn.kind === 'program') return new ProgramLowering(fn, opts.defines, loader, resolve).lower();
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
