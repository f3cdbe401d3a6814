import type { Axes, DType, IterationOrder, SourceLoc } from '../ir/types.js';
import type { PyStmt } from '../python/ast.js';

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
  /** `Field[...]` (with `dims`: data dimensions) or `GlobalTable[...]` (axes `''`). */
  | { k: 'fieldType'; dtype: DType; axes: Axes; dims?: number[] }
  | { k: 'axes'; axes: Axes }
  | { k: 'order'; order: IterationOrder }
  | { k: 'axisIndex'; axis: 'I' | 'J' | 'K'; index: number; offset: number }
  /** An offset along an axis, `I + 1` or `K - 1`: field[I + 1] is field[1, 0, 0]. */
  | { k: 'axisOffset'; axis: 'I' | 'J' | 'K'; offset: number }
  /** An axis object (`gtscript.I`), indexable into an axisIndex. */
  | { k: 'axis'; axis: 'I' | 'J' | 'K' }
  | { k: 'builtin'; name: string }
  | { k: 'function'; fn: FunctionInfo }
  /** A class: a program when decorated @program (or its __call__ is). */
  | { k: 'class'; cls: ClassInfo }
  | { k: 'generic'; name: string }
  /**
   * An external naming a `@gtscript.function` by its import path
   * (`--externals '{"f": {"function": "pkg.mod.f"}}'`); resolved like an import from the
   * stencil's module when the stencil imports the external.
   */
  | { k: 'functionRef'; path: string }
  /** A module-level `class X(Enum)`: its members by name. */
  | { k: 'enum'; name: string; members: Record<string, Value> }
  /**
   * An object holding constants as attributes: a `types.SimpleNamespace(...)`, or an
   * instance of a plain class or dataclass (its class-level values, overridden by the
   * constructor's arguments).
   */
  | { k: 'namespace'; name: string; attrs: Record<string, Value> }
  /** A member of an enum (`X.GEOS`); equal to another when enum and name match. */
  | { k: 'enumMember'; enum: string; name: string; value: Value }
  /** `os.environ`: reads of it are evaluated at compile time and recorded (they change the cache key). */
  | { k: 'environ' }
  /** `os.environ.get`, bound to the environment. */
  | { k: 'environGet' }
  /** `s.upper` / `s.lower` / `s.strip` of a compile-time string, to be called. */
  | { k: 'strMethod'; value: string; method: 'upper' | 'lower' | 'strip' }
  /** `compiletime(int)` in a program signature. */
  | { k: 'compiletime'; inner: Value }
  /**
   * An import not resolved yet: modules are loaded when a name they bind is first used,
   * so imports a stencil never touches cost nothing and cannot fail the build. Only ever
   * stored in a module scope's names; read them through `scopeName`.
   */
  | { k: 'lazy'; resolve: () => Value }
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
  /** `@gtscript.stencil(dtypes={"Name": Field[IJ, float]})`: names a temporary's annotation may use (GT4Py's dtypes=). */
  dtypes?: Record<string, Value>;
  /** `@gtscript.stencil(backend="...")` given as a string: what it means to orch, and where it is. */
  backend?: { name: string; kind: 'python' | 'cpu' | 'cuda'; loc: SourceLoc };
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
  /** Set on the local scope of a module-level function evaluated at compile time: its module. */
  parent?: ModuleScope;
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
    case 'enumMember':
      return `${v.enum}.${v.name}`;
    case 'enum':
      return `enum '${v.name}'`;
    case 'namespace':
      return `${v.name} object`;
    case 'opaque':
      return 'a value orch cannot evaluate';
    default:
      return v.k;
  }
}

/** A module-level name, resolving (and remembering) a lazy import on first use. */
export function scopeName(scope: ModuleScope, name: string): Value | undefined {
  const v = scope.names.get(name);
  if (v?.k !== 'lazy') return v;
  const resolved = v.resolve();
  scope.names.set(name, resolved);
  return resolved;
}
