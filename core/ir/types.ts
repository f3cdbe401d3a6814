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

import type { Code } from '../diagnostics/codes.js';

export type DType = 'float64' | 'float32' | 'int8' | 'int16' | 'int32' | 'int64' | 'bool';
/** Spatial axes of an array; `''` has none (a GlobalTable: data dimensions only). */
export type Axes = 'IJK' | 'IJ' | 'IK' | 'JK' | 'I' | 'J' | 'K' | '';
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
export const BUILTIN_FNS = [
  'abs', 'min', 'max', 'mod',
  'sqrt', 'exp', 'log', 'log10', 'pow',
  'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'arctan2',
  'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh',
  'floor', 'ceil', 'trunc', 'isnan', 'isinf', 'isfinite', 'erf', 'erfc', 'gamma', 'cbrt',
  'round', 'round_away_from_zero',
] as const;
export type BuiltinFn = (typeof BUILTIN_FNS)[number];

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
   *
   * `data` indexes the data dimensions of a field that has them (`dims`), one int
   * expression per dimension: constants (checked when lowered) or values computed at the
   * point (`table.A[idx]`), which backends check as they read, like variable K offsets.
   *
   *     v[0, 0, 0][1]            data index (GT4Py's `v[0, 0, 0][1]`)
   */
  | { kind: 'field'; name: string; offset: Offset; kOffset?: Expr; data?: Expr[]; loc?: SourceLoc; dtype: DType }
  /** Runtime scalar: a stencil scalar parameter, or a program scalar variable. */
  | { kind: 'scalar'; name: string; dtype: DType }
  | { kind: 'unary'; op: UnaryOp; arg: Expr; dtype: DType }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr; dtype: DType }
  | { kind: 'ternary'; cond: Expr; then: Expr; else: Expr; dtype: DType }
  | { kind: 'call'; fn: BuiltinFn; args: Expr[]; dtype: DType }
  | { kind: 'cast'; arg: Expr; dtype: DType }
  /** `field.shape[axis]` in a program (int64). */
  | { kind: 'shape'; name: string; axis: number; dtype: DType }
  /**
   * The K index of the current point, counted from the first level of the call's domain
   * (gtscript's `K` read as a value, GT4Py's experimental iterator access): int64, only
   * inside stencil bodies.
   *
   *     index(K)
   */
  | { kind: 'kindex'; dtype: DType };

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

/** What a debug check tests after a write (debug insertion). */
export interface DebugCheck {
  test: 'nan' | 'negative';
  /** values below this fail a 'negative' check */
  threshold: number;
  program: string;
  stencil: string;
  /** abort: the call fails with the report; log: report on stderr and continue */
  action: 'abort' | 'log';
}

/** Statements of a stencil body (per grid point). */
export type Stmt =
  /**
   * Writes `target` at the current point, or `kOffset` levels away from it (gtscript's K
   * offset write `f[0, 0, 1] = ...`, legal in FORWARD/BACKWARD computations only), plus
   * `kVar` levels when present: a K offset computed at the point (`f[0, 0, lev] = ...`, an
   * int expression evaluated before the value). Like a read at a variable K offset, such a
   * write is checked as it happens: outside the array it is an error at `loc`, never a store.
   *
   *     f[0, 0, 1] = v             constant K offset
   *     f[0, 0, 0 + (lev)] = v     variable K offset (printed form)
   */
  | { kind: 'assign'; target: string; value: Expr; loc: SourceLoc; kOffset?: number; kVar?: Expr; data?: number[] }
  /** Assigns a point-local scalar of the enclosing HLoop (a temporary shrunk to a scalar). */
  | { kind: 'let'; name: string; value: Expr; loc: SourceLoc }
  /** Checks the value just written to `target` at the current point (debug builds). */
  | { kind: 'check'; target: string; check: DebugCheck; loc: SourceLoc; kOffset?: number; data?: number[] }
  | { kind: 'if'; cond: Expr; then: Stmt[]; else: Stmt[]; loc: SourceLoc }
  | { kind: 'while'; cond: Expr; body: Stmt[]; loc: SourceLoc }
  /**
   * Runs `body` where (i, j) lies in any of `regions`. `split` (set by region expansion)
   * asks library expansion for a loop over each region's own bounds instead of a mask.
   */
  | { kind: 'region'; regions: HorizontalRegion[]; body: Stmt[]; loc: SourceLoc; split?: boolean };

export interface IntervalBlock {
  start: AxisBound;
  end: AxisBound;
  body: Stmt[];
  loc: SourceLoc;
  /**
   * Bounds known only at run time that depend on scalars alone (`interval(0, n)`): the
   * frontend masks the body's statements by them, and library expansion has the call check
   * that they keep the interval inside its domain. Absent sides are the static bounds.
   *
   *     interval [start + 0, end + 0) runtime [_, n) { ... }
   */
  runtime?: { lo?: Expr; hi?: Expr };
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
  /** Extents of the data dimensions (`Field[(dtype, (3, 2))]`), stored after the spatial axes. */
  dims?: number[];
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
  /** Parameters declared with a default (`= None`, `= 7.0`), which GT4Py lets a caller leave out. */
  optional?: string[];
  fields: FieldDecl[];
  scalars: ScalarDecl[];
  computations: Computation[];
}

/** Where pooling placed an array in the handle's arena (temporaries and transients). */
export interface PoolSlot {
  /** byte offset of the array in the arena of its role, evaluated when it is allocated */
  offset: Expr;
  /** bytes the arena must hold up to the end of this array */
  end: Expr;
  /** false when analysis proved every point is written before it is read */
  zeroFill: boolean;
}

/** A program array: an argument, a `temporary(...)`, or a stencil's transient. */
export interface ArrayDecl {
  name: string;
  dtype: DType;
  axes: Axes;
  /**
   * Extents of the data dimensions (args only): the array is (spatial..., d0, d1, ...) with
   * the data dimensions C-contiguous, so element (p, d) sits at p's offset + flat(d).
   */
  dims?: number[];
  role: 'arg' | 'temporary' | 'transient';
  /** For temporaries and transients: the allocated extent along each of `axes`. */
  shape?: Expr[];
  /** Set by the pooling pass; without it the array gets its own zero-filled allocation. */
  pool?: PoolSlot;
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
  /** Point-local scalars (zero at the start of every point), assigned by `let`. */
  locals?: { name: string; dtype: DType }[];
  /**
   * In a tiled launch: how many points beyond its tile this nest computes, as
   * [below in I, above in I, below in J, above in J] (over-computation for later nests).
   */
  grow?: [number, number, number, number];
}

/**
 * A launch run tile by tile over I and J (see plugins/simplify/tiling.ts). Each tile runs
 * every loop of the launch in order, each nest over its own range clipped to the tile
 * grown by the nest's `grow`; the first and last tiles along an axis keep the nest's range
 * unclipped on their outer side. Arrays in `local` live per tile: each tile starts with
 * its own copy (zero-filled when `zeroFill`), so nests may over-compute them freely.
 */
export interface Tiling {
  /** tile size along I and J, in compute points */
  size: [number, number];
  /**
   * Levels per tile along K, when the launch may also be cut along K (all its loops
   * PARALLEL, no array it writes read at a K offset); absent: tiles span the K ranges.
   */
  k?: number;
  local: { name: string; zeroFill: boolean }[];
  /**
   * Arrays that outlive the launch but are updated in place and read beyond the tile (see
   * plugins/simplify/inPlaceVersions.ts). Inside a tile the launch's nests address a
   * tile-local version of `name`: each tile fills it from `name` over the points it
   * touches (so nests may over-compute it like a tile-local array) and commits the points
   * its writer nests own when it ends. Points other tiles read (within the reach of a tile
   * cut, core/ir/tileVersions.ts) go to the transient `shadow` instead and reach `name`
   * after every tile has run, so every tile reads its neighbours' input values. `fill`
   * false: the launch writes every point of `name` it reads before reading it, so a tile
   * needs none of its input values, and no tile reads `name` itself: its points all go to
   * `name` directly and the shadow stays unused.
   */
  versioned?: { name: string; shadow: string; fill: boolean }[];
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
  code: Code;
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
      /** Set by library expansion from the preset; kept by the tiling pass where it pays. */
      tile?: Tiling;
      loops: VLoop[];
      loc: SourceLoc;
    }
  | { kind: 'set'; name: string; value: Expr; loc: SourceLoc }
  | { kind: 'for'; var: string; start: Expr; stop: Expr; step: Expr; body: PStmt[]; loc: SourceLoc }
  | { kind: 'while'; cond: Expr; body: PStmt[]; loc: SourceLoc }
  | { kind: 'if'; cond: Expr; then: PStmt[]; else: PStmt[]; loc: SourceLoc }
  /**
   * A call of host callback `callback` (one of `Program.callbacks`), in program order:
   * `args` are evaluated, converted to the callback's parameter dtypes, and passed by
   * value; the result, if any, is stored in program scalar `result`. A callback that
   * reports failure (raises) ends the run with an error.
   *
   *   callback cfl_substeps(umax, dx, dt) -> n_sub
   */
  | { kind: 'callback'; callback: string; args: Expr[]; result: string | null; loc: SourceLoc }
  | HaloStmt;

/**
 * A halo exchange among the ranks of a layout (docs/mpi.md): every field's compute points
 * within `width` of each side go to the neighbour on that side (edges and corners), and
 * its halo points within `width` are filled from the neighbours. `halo` is where the
 * compute domain starts in each array (NDSL's n_halo: the array is nx + 2*halo wide).
 * `update` is `start` then `wait`; a `start` packs and posts the messages, the `wait`
 * with the same `exchange` number completes them and unpacks.
 *
 *   halo update #0 (q, r) width 2 halo 3
 */
export interface HaloStmt {
  kind: 'halo';
  phase: 'update' | 'start' | 'wait';
  /** Pairs a start with its wait; unique per program. */
  exchange: number;
  fields: string[];
  width: number;
  halo: number;
  loc: SourceLoc;
}

/**
 * Statements of a callback body as orch can evaluate it itself (pure scalar code). Only
 * the interpreter and Node hosts run these; a compiled library always calls the host.
 */
export type HostStmt =
  | { kind: 'set'; name: string; value: Expr; loc: SourceLoc }
  | { kind: 'if'; cond: Expr; then: HostStmt[]; else: HostStmt[]; loc: SourceLoc }
  | { kind: 'while'; cond: Expr; body: HostStmt[]; loc: SourceLoc }
  | { kind: 'for'; var: string; start: Expr; stop: Expr; step: Expr; body: HostStmt[]; loc: SourceLoc }
  | { kind: 'return'; value: Expr | null; loc: SourceLoc }
  /** `raise ...`: the call fails; `message` is the statement's source text. */
  | { kind: 'raise'; message: string; loc: SourceLoc };

/**
 * A host callback (`@callback`): a function the compiled library calls with scalar
 * arguments, optionally returning a scalar. Hosts register one function pointer per
 * callback (index = position in `Program.callbacks`) before running the program.
 */
export interface CallbackDecl {
  /** Unique within the program (the Python name, suffixed if two modules share it). */
  name: string;
  /**
   * Where the host finds the function: the Python module file and function name; for a
   * callback of an orchestrated component's closure, `path` names it on the live object.
   */
  function: { file: string; name: string; path?: string };
  params: { name: string; dtype: DType }[];
  /** Result dtype, or null for a callback returning None. */
  result: DType | null;
  loc: SourceLoc;
  /**
   * The body for orch's own hosts (interpreter, `orch run`): parameters and locals, and
   * the statements; `null` with `why` when the body is not pure scalar code.
   */
  host: { scalars: ScalarVar[]; body: HostStmt[] } | null;
  why?: { message: string; loc: SourceLoc };
}

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
  /** Host callbacks the program calls, in ABI index order (absent: none). */
  callbacks?: CallbackDecl[];
  body: PStmt[];
}

/** Axis letters of an array, in storage order. */
export function axisIndices(axes: Axes): number[] {
  return [...axes].map((a) => 'IJK'.indexOf(a));
}

/** Row-major position of data index `idx` within data dimensions `dims`. */
export function flatDataIndex(dims: readonly number[], idx: readonly number[]): number {
  return idx.reduce((acc, x, n) => acc * dims[n] + x, 0);
}

/** Elements per spatial point of an array with data dimensions `dims` (1 without). */
export function dataSize(dims: readonly number[] | undefined): number {
  return (dims ?? []).reduce((a, b) => a * b, 1);
}

/** A stencil call after library expansion (see `PStmt`). */
export type Launch = Extract<PStmt, { kind: 'launch' }>;
