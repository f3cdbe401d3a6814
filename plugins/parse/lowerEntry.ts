import type { Program, SourceLoc, StencilDef } from '../../core/ir/types.js';
import { hasComputation, type EntryInfo } from '../../core/frontend/entries.js';
import type { LayoutContext } from '../../core/frontend/layoutExternals.js';
import type { ModuleLoader } from '../../core/frontend/ModuleLoader.js';
import type { FunctionInfo, Value } from '../../core/frontend/values.js';
import type { Closure } from '../../core/frontend/closure.js';
import { ProgramLowering, stencilEntryProgram } from './ProgramLowering.js';
import { StencilLowering } from './StencilLowering.js';
import { notAnEntry, notStencilNorProgram } from '../../core/diagnostics/frontendErrors.js';

interface EntryOptions {
  /** Externals for stencil entries (and for every stencil a program calls). */
  externals: Record<string, Value>;
  /** Compile-time program arguments. */
  defines: Record<string, number | boolean>;
  /** A layout build's code path and rank grid (region externals per stencil call). */
  layout?: LayoutContext | null;
  /** An orchestrated component's resolved closure (the entry is its class). */
  closure?: Closure | null;
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
  if (opts.closure) return new ProgramLowering(null, opts.defines, loader, resolve, opts.layout ?? null, opts.closure).lower();
  if (!fn) throw new Error('lowerEntry: no entry and no closure');
  if ('methods' in fn || fn.kind === 'program') return new ProgramLowering(fn, opts.defines, loader, resolve, opts.layout ?? null).lower();
  if (fn.kind === 'gtfunction' || fn.kind === 'callback') {
    throw notAnEntry(fn.name, fn.kind, fn.def.nameLoc);
  }
  if (!hasComputation(fn)) {
    throw notStencilNorProgram(fn.name, fn.def.nameLoc);
  }
  return stencilEntryProgram(resolve(fn, fn.def.nameLoc));
}
