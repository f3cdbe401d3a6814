/**
 * The orch IR. One program IR carries a module's entry from parse to codegen:
 *
 *  - after `parse`, a program body holds coarse `call` statements (stencil library
 *    nodes) that reference `StencilDef`s;
 *  - after `libraryExpansion`, each `call` is replaced by a `launch` holding loop nests
 *    (`VLoop` over K, `HLoop` over IJ) whose bodies address program arrays directly.
 *
 * Everything is plain data (JSON-serializable) so it can be hashed, printed and cloned.
 */

export type DType = 'float64' | 'float32' | 'int32' | 'int64' | 'bool';
export type Axes = 'IJK' | 'IJ' | 'IK' | 'JK' | 'I' | 'J' | 'K';
export type IterationOrder = 'PARALLEL' | 'FORWARD' | 'BACKWARD';

/** 1-based line and column in a user's source file. */
export interface SourceLoc {
  file: string;
  line: number;
  col: number;
}

export type Offset = [number, number, number];

export type BinaryOp =
  | '+' | '-' | '*' | '/' | '//' | '%' | '**'
  | '<' | '<=' | '>' | '>=' | '==' | '!='
  | 'and' | 'or';
export type UnaryOp = '-' | '+' | 'not';

/** Math builtins of gtscript (and of `math.*` in programs). */
export type BuiltinFn =
  | 'abs' | 'min' | 'max' | 'mod'
  | 'sqrt' | 'exp' | 'log' | 'log10' | 'pow'
  | 'sin' | 'cos' | 'tan' | 'arcsin' | 'arccos' | 'arctan' | 'arctan2'
  | 'sinh' | 'cosh' | 'tanh' | 'arcsinh' | 'arccosh' | 'arctanh'
  | 'floor' | 'ceil' | 'trunc' | 'isnan' | 'isinf' | 'isfinite' | 'erf' | 'erfc' | 'gamma' | 'cbrt';

/**
 * Expressions. Every node carries its result dtype; the frontend inserts explicit
 * `cast` nodes, so backends never apply promotion rules of their own.
 */
export type Expr =
  | { kind: 'lit'; value: number | boolean; dtype: DType }
  /**
   * Field access relative to the current point (stencil bodies): at `offset`, plus, when
   * `kOffset` is present, a K offset computed at the current point (gtscript's variable
   * K offset `f[0, 0, lev + 1]`; an int expression, evaluated before the read). Such a read
   * cannot be bounds-checked before a launch, so backends check each one as it happens and
   * report an error instead of reading outside the array.
   *
   * `loc` (set on variable-offset reads) is where the read is written, for that error.
   *
   *     f[0, 0, 1]               constant offset
   *     f[0, 0, 0 + (lev + 1)]   variable K offset (printed form)
   */
  | { kind: 'field'; name: string; offset: Offset; kOffset?: Expr; loc?: SourceLoc; dtype: DType }
  /** Runtime scalar: a stencil scalar parameter, or a program scalar variable. */
  | { kind: 'scalar'; name: string; dtype: DType }
  | { kind: 'unary'; op: UnaryOp; arg: Expr; dtype: DType }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr; dtype: DType }
  | { kind: 'ternary'; cond: Expr; then: Expr; else: Expr; dtype: DType }
  | { kind: 'call'; fn: BuiltinFn; args: Expr[]; dtype: DType }
  | { kind: 'cast'; arg: Expr; dtype: DType }
  /** `field.shape[axis]` in a program (int64). */
  | { kind: 'shape'; name: string; axis: number; dtype: DType };

/** A K bound: `level` start means the first level of the domain, end one past the last. */
export interface AxisBound {
  level: 'start' | 'end';
  offset: number;
}

/** One axis of a horizontal region; `null` bounds are open (`region[:, j_start]`). */
export interface RegionAxis {
  start: AxisBound | null;
  end: AxisBound | null;
}

export interface HorizontalRegion {
  i: RegionAxis;
  j: RegionAxis;
}

/** Statements of a stencil body (per grid point). */
export type Stmt =
  | { kind: 'assign'; target: string; value: Expr; loc: SourceLoc }
  | { kind: 'if'; cond: Expr; then: Stmt[]; else: Stmt[]; loc: SourceLoc }
  | { kind: 'while'; cond: Expr; body: Stmt[]; loc: SourceLoc }
  | { kind: 'region'; regions: HorizontalRegion[]; body: Stmt[]; loc: SourceLoc };

export interface IntervalBlock {
  start: AxisBound;
  end: AxisBound;
  body: Stmt[];
  loc: SourceLoc;
}

export interface Computation {
  order: IterationOrder;
  intervals: IntervalBlock[];
  loc: SourceLoc;
}

export interface FieldDecl {
  name: string;
  dtype: DType;
  axes: Axes;
  /** API fields are parameters; temporaries are implicit locals of the stencil. */
  role: 'api' | 'temp';
}

export interface ScalarDecl {
  name: string;
  dtype: DType;
}

/** A stencil after the frontend: externals folded, helpers inlined, types resolved. */
export interface StencilDef {
  name: string;
  loc: SourceLoc;
  /** Parameter names in declaration order (fields and scalars interleaved). */
  params: string[];
  fields: FieldDecl[];
  scalars: ScalarDecl[];
  computations: Computation[];
}

/** A program array: an argument, a `temporary(...)`, or a stencil's transient. */
export interface ArrayDecl {
  name: string;
  dtype: DType;
  axes: Axes;
  role: 'arg' | 'temporary' | 'transient';
  /** For temporaries and transients: the allocated extent along each of `axes`. */
  shape?: Expr[];
  loc: SourceLoc;
}

export interface ScalarVar {
  name: string;
  dtype: DType;
  role: 'arg' | 'local';
}

/** Compute-relative loop range `[lo, hi)`. */
export interface Range {
  lo: Expr;
  hi: Expr;
}

/** A horizontal loop nest: statements run in order at each (i, j) point of the range. */
export interface HLoop {
  i: Range;
  j: Range;
  body: Stmt[];
}

/**
 * A vertical loop. FORWARD/BACKWARD run all `body` nests per level in K order.
 * PARALLEL runs each nest over the whole K range before the next one starts.
 */
export interface VLoop {
  order: IterationOrder;
  k: Range;
  body: HLoop[];
  loc: SourceLoc;
}

/**
 * A condition a launch checks before it runs, with the user error it reports otherwise
 * (e.g. an interval that is empty for the call's K size). Printed as
 *
 *     require (nk >= 3) else E_EMPTY_INTERVAL "interval(1, -1) needs ... has {0}" (nk)
 */
export interface LaunchRequirement {
  /** Host expression (bool) that must hold. */
  cond: Expr;
  code: string;
  /** The error message; `{0}`, `{1}` ... stand for the values of `args` (int64 host expressions). */
  message: string;
  args: Expr[];
  hint: string;
  loc: SourceLoc;
}

/** Program-level statements. */
export type PStmt =
  /** A stencil library node, before library expansion. */
  | {
      kind: 'call';
      stencil: string;
      /** stencil field parameter -> program array */
      fields: Record<string, string>;
      /** stencil scalar parameter -> program expression */
      scalars: Record<string, Expr>;
      /** per stencil field parameter: origin of the compute domain in that array */
      origins: Record<string, Expr[]>;
      domain: [Expr, Expr, Expr];
      loc: SourceLoc;
    }
  /** A stencil call after library expansion. */
  | {
      kind: 'launch';
      stencil: string;
      domain: [Expr, Expr, Expr];
      /** per program array: index of compute point (0,0,0), one entry per axis of the array */
      origins: Record<string, Expr[]>;
      /** transients allocated (zero-filled) for the duration of this launch */
      transients: string[];
      /** What the call's domain must satisfy, checked before anything runs (GT4Py checks it at call time). */
      requires?: LaunchRequirement[];
      loops: VLoop[];
      loc: SourceLoc;
    }
  | { kind: 'set'; name: string; value: Expr; loc: SourceLoc }
  | { kind: 'for'; var: string; start: Expr; stop: Expr; step: Expr; body: PStmt[]; loc: SourceLoc }
  | { kind: 'while'; cond: Expr; body: PStmt[]; loc: SourceLoc }
  | { kind: 'if'; cond: Expr; then: PStmt[]; else: PStmt[]; loc: SourceLoc };

export interface ParamDecl {
  name: string;
  kind: 'field' | 'scalar';
}

/** One compiled entry: a `@program`, or a stencil called directly (wrapped as a program). */
export interface Program {
  name: string;
  /** `program` for @program entries; `stencil` when a stencil is the entry. */
  entryKind: 'program' | 'stencil';
  loc: SourceLoc;
  /** ABI argument order. */
  params: ParamDecl[];
  arrays: ArrayDecl[];
  scalars: ScalarVar[];
  /** Compile-time values the program was specialized with. */
  compiletime: Record<string, number | boolean>;
  stencils: Record<string, StencilDef>;
  body: PStmt[];
}

/** Axis letters of an array, in storage order. */
export function axisIndices(axes: Axes): number[] {
  return [...axes].map((a) => 'IJK'.indexOf(a));
}
