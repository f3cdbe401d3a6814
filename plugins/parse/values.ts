import type { Axes, DType, IterationOrder, SourceLoc } from '../../core/ir/types.js';
import type { PyStmt } from '../../core/python/ast.js';

/**
 * Compile-time values the frontend knows about: module constants, imported modules,
 * type aliases, gtscript builtins, helper functions and externals.
 */
export type Value =
  | { k: 'num'; value: number; isInt: boolean }
  | { k: 'bool'; value: boolean }
  | { k: 'str'; value: string }
  | { k: 'none' }
  | { k: 'tuple'; items: Value[] }
  | { k: 'dict'; entries: Record<string, Value> }
  | { k: 'module'; name: string; scope: ModuleScope | null; members?: Record<string, Value> }
  | { k: 'dtype'; dtype: DType }
  | { k: 'fieldType'; dtype: DType; axes: Axes }
  | { k: 'axes'; axes: Axes }
  | { k: 'order'; order: IterationOrder }
  | { k: 'axisIndex'; axis: 'I' | 'J' | 'K'; index: number; offset: number }
  /** An axis object (`gtscript.I`), indexable into an axisIndex. */
  | { k: 'axis'; axis: 'I' | 'J' | 'K' }
  | { k: 'builtin'; name: string }
  | { k: 'function'; fn: FunctionInfo }
  /** A class: a program when decorated @program (or its __call__ is). */
  | { k: 'class'; cls: ClassInfo }
  | { k: 'generic'; name: string }
  /** `compiletime(int)` in a program signature. */
  | { k: 'compiletime'; inner: Value }
  /** A value orch could not evaluate; using it is an error that says why. */
  | { k: 'opaque'; why: string; loc: SourceLoc };

export type FunctionKind = 'stencil' | 'gtfunction' | 'program' | 'callback' | 'plain';

export interface FunctionInfo {
  name: string;
  def: Extract<PyStmt, { t: 'def' }>;
  module: ModuleScope;
  kind: FunctionKind;
  /** `@stencil(externals={...})` / `@gtscript.stencil(backend=..., externals=...)` */
  externals: Record<string, Value>;
}

/** A class at module level: its methods and the compile-time values of its class body. */
export interface ClassInfo {
  name: string;
  def: Extract<PyStmt, { t: 'class' }>;
  module: ModuleScope;
  methods: Map<string, FunctionInfo>;
  /** Class-level constants (`N = 3` in the class body). */
  attrs: Map<string, Value>;
  /** Decorated @program, or its `__call__` is: a program class (an entry). */
  isProgram: boolean;
}

export interface ModuleScope {
  /** Dotted module name (`constants`, `pkg.sub.mod`). */
  name: string;
  file: string;
  names: Map<string, Value>;
}

export function isNumeric(v: Value): v is Extract<Value, { k: 'num' }> | Extract<Value, { k: 'bool' }> {
  return v.k === 'num' || v.k === 'bool';
}

export function describeValue(v: Value): string {
  switch (v.k) {
    case 'num':
      return String(v.value);
    case 'bool':
      return v.value ? 'True' : 'False';
    case 'str':
      return JSON.stringify(v.value);
    case 'module':
      return `module '${v.name}'`;
    case 'function':
      return `function '${v.fn.name}'`;
    case 'class':
      return `class '${v.cls.name}'`;
    case 'builtin':
      return `'${v.name}'`;
    case 'opaque':
      return 'a value orch cannot evaluate';
    default:
      return v.k;
  }
}
