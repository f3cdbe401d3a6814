import type { SourceLoc, StencilDef } from '../../core/ir/types.js';
import type { ClassInfo, FunctionInfo, Value } from '../../core/frontend/values.js';

/** What a name (or `self.attr`) means in a program. */
export type PBinding =
  | { k: 'array'; name: string }
  | { k: 'scalar'; name: string }
  | { k: 'value'; value: Value }
  /**
   * An instance of a program class: what its __init__ stored on `self`; or, `closed`, an
   * orchestrated component whose members come from its resolved closure (keys `.name`,
   * `[key]`), called through its orchestrated method `call`.
   */
  | { k: 'object'; cls: ClassInfo; attrs: Map<string, PBinding>; call?: string; closed?: boolean }
  /** A method of an instance (inlined like a nested program, `self` bound). */
  | { k: 'method'; fn: FunctionInfo; self: PObject }
  /**
   * A plain object, dict or list of a closure: the members the method reads; `halo`: an
   * NDSL WrappedHaloUpdater whose update/start/wait are the compiled exchange of these arrays.
   */
  | { k: 'record'; type: string; attrs: Map<string, PBinding>; halo?: { fields: string[]; width: number } }
  /** A stencil object of a closure, with its own externals and a FrozenStencil's origin/domain. */
  | { k: 'stencil'; fn: FunctionInfo; externals: Record<string, Value>; origin: number[] | null; domain: number[] | null }
  /** A host callback of a closure (`path` names it for the host); `method`: bound to its object. */
  | { k: 'callback'; fn: FunctionInfo; path: string; method: boolean }
  /** A closure member orch cannot compile: an error where it is used. */
  | { k: 'unsupported'; type: string; why: string; hint: string };
export type PObject = Extract<PBinding, { k: 'object' }>;

export interface PScope {
  vars: Map<string, PBinding>;
  fn: FunctionInfo;
  prefix: string;
}

/**
 * Resolves and caches lowered stencils for the programs that call them. `callExternals`
 * (region externals of a layout build, per call) rank below the stencil's own externals.
 */
export interface StencilResolver {
  (fn: FunctionInfo, loc: SourceLoc, callExternals?: Record<string, Value>, ownExternals?: Record<string, Value>): StencilDef;
}
