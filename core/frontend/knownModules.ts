import type { Axes, DType } from '../ir/types.js';
import { unsignedWhy } from './constEval.js';
import type { Value } from './values.js';

/**
 * Modules orch understands without their Python packages installed: GT4Py's gtscript,
 * NDSL's type aliases, numpy's dtypes, `math` and orch's own decorators.
 */

const MATH_BUILTINS = [
  'abs', 'min', 'max', 'mod', 'sqrt', 'exp', 'log', 'log10', 'pow',
  'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'arctan2',
  'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh',
  'floor', 'ceil', 'trunc', 'isnan', 'isinf', 'isfinite', 'erf', 'erfc', 'gamma', 'cbrt',
  'round', 'round_away_from_zero',
];

function builtins(names: string[]): Record<string, Value> {
  return Object.fromEntries(names.map((n) => [n, { k: 'builtin', name: n } as Value]));
}

/** What `gtscript` (and GT4Py's `__gtscript__` placeholder module) exports. */
export const GTSCRIPT_NAMES: Record<string, Value> = {
  ...builtins(MATH_BUILTINS),
  ...builtins(['computation', 'interval', 'horizontal', 'region', 'function', 'stencil', 'lazy_stencil', '__INLINED', 'compile_assert', 'THIS_K']),
  // gtscript also exports the short names of the inverse functions (PyFV3 uses asin)
  asin: { k: 'builtin', name: 'arcsin' },
  acos: { k: 'builtin', name: 'arccos' },
  atan: { k: 'builtin', name: 'arctan' },
  asinh: { k: 'builtin', name: 'arcsinh' },
  acosh: { k: 'builtin', name: 'arccosh' },
  atanh: { k: 'builtin', name: 'arctanh' },
  PARALLEL: { k: 'order', order: 'PARALLEL' },
  FORWARD: { k: 'order', order: 'FORWARD' },
  BACKWARD: { k: 'order', order: 'BACKWARD' },
  Field: { k: 'generic', name: 'Field' },
  GlobalTable: { k: 'generic', name: 'GlobalTable' },
  I: { k: 'axis', axis: 'I' },
  J: { k: 'axis', axis: 'J' },
  K: { k: 'axis', axis: 'K' },
  IJ: { k: 'axes', axes: 'IJ' },
  IK: { k: 'axes', axes: 'IK' },
  JK: { k: 'axes', axes: 'JK' },
  IJK: { k: 'axes', axes: 'IJK' },
  float64: { k: 'dtype', dtype: 'float64' },
  float32: { k: 'dtype', dtype: 'float32' },
  int32: { k: 'dtype', dtype: 'int32' },
  int64: { k: 'dtype', dtype: 'int64' },
};

/**
 * The names GT4Py treats as gtscript builtins inside stencil and function bodies, imported
 * or not (its `gtscript.builtins`): `with computation(PARALLEL), interval(...)` needs no
 * import there, because GT4Py never evaluates those names in the module's scope.
 */
export const GT4PY_BODY_BUILTINS: ReadonlySet<string> = new Set([
  'I', 'J', 'K', 'IJ', 'IK', 'JK', 'IJK', 'FORWARD', 'BACKWARD', 'PARALLEL', 'Field',
  'computation', 'interval', 'horizontal', 'region', '__INLINED', 'compile_assert',
  ...MATH_BUILTINS, 'asin', 'acos', 'atan', 'asinh', 'acosh', 'atanh',
  'int32', 'int64', 'float32', 'float64',
].filter((n) => n in GTSCRIPT_NAMES));

const NOWHERE = { file: '', line: 0, col: 0 };
/** numpy's unsigned integer types, which neither GT4Py nor orch has a field dtype for: using one says so. */
const unsignedInts: Record<string, Value> = Object.fromEntries(
  ['uint8', 'uint16', 'uint32', 'uint64'].map((n) => [n, { k: 'opaque', why: unsignedWhy(n), loc: NOWHERE } as Value]),
);

const numpy: Record<string, Value> = {
  ...unsignedInts,
  int8: { k: 'dtype', dtype: 'int8' },
  int16: { k: 'dtype', dtype: 'int16' },
  float64: { k: 'dtype', dtype: 'float64' },
  double: { k: 'dtype', dtype: 'float64' },
  float_: { k: 'dtype', dtype: 'float64' },
  float32: { k: 'dtype', dtype: 'float32' },
  int32: { k: 'dtype', dtype: 'int32' },
  int64: { k: 'dtype', dtype: 'int64' },
  int_: { k: 'dtype', dtype: 'int64' },
  bool_: { k: 'dtype', dtype: 'bool' },
  bool: { k: 'dtype', dtype: 'bool' },
  pi: { k: 'num', value: Math.PI, isInt: false },
  e: { k: 'num', value: Math.E, isInt: false },
  ...builtins(MATH_BUILTINS),
  minimum: { k: 'builtin', name: 'min' },
  maximum: { k: 'builtin', name: 'max' },
  fabs: { k: 'builtin', name: 'abs' },
  absolute: { k: 'builtin', name: 'abs' },
  power: { k: 'builtin', name: 'pow' },
};

const math: Record<string, Value> = {
  pi: { k: 'num', value: Math.PI, isInt: false },
  e: { k: 'num', value: Math.E, isInt: false },
  inf: { k: 'num', value: Infinity, isInt: false },
  nan: { k: 'num', value: NaN, isInt: false },
  ...builtins(['sqrt', 'exp', 'log', 'log10', 'pow', 'sin', 'cos', 'tan', 'sinh', 'cosh', 'tanh', 'floor', 'ceil', 'trunc', 'isnan', 'isinf', 'isfinite', 'erf', 'erfc', 'gamma', 'cbrt']),
  fabs: { k: 'builtin', name: 'abs' },
  asin: { k: 'builtin', name: 'arcsin' },
  acos: { k: 'builtin', name: 'arccos' },
  atan: { k: 'builtin', name: 'arctan' },
  atan2: { k: 'builtin', name: 'arctan2' },
  asinh: { k: 'builtin', name: 'arcsinh' },
  acosh: { k: 'builtin', name: 'arccosh' },
  atanh: { k: 'builtin', name: 'arctanh' },
  fmod: { k: 'builtin', name: 'fmod' },
};

/** NDSL's aliases at its default 64-bit precision. */
function ndslTyping(): Record<string, Value> {
  const out: Record<string, Value> = {
    Float: { k: 'dtype', dtype: 'float64' },
    Int: { k: 'dtype', dtype: 'int64' },
    Bool: { k: 'dtype', dtype: 'bool' },
  };
  const kinds: [string, DType][] = [['Float', 'float64'], ['Int', 'int64'], ['Bool', 'bool']];
  const suffixes: [string, Axes][] = [['', 'IJK'], ['IJ', 'IJ'], ['K', 'K'], ['I', 'I'], ['J', 'J'], ['IK', 'IK'], ['JK', 'JK']];
  for (const [prefix, dtype] of kinds) {
    for (const [suffix, axes] of suffixes) out[`${prefix}Field${suffix}`] = { k: 'fieldType', dtype, axes };
  }
  return out;
}

const orch: Record<string, Value> = builtins(['program', 'stencil', 'callback', 'compiletime', 'temporary', 'halo_update', 'halo_update_start', 'halo_update_wait']);

/** `orch.ndsl`: NDSL's orchestration decorators (`dace_inhibitor` marks a callback). */
const orchNdsl: Record<string, Value> = builtins(['orchestrate', 'orchestrate_function', 'dace_inhibitor', 'install']);

/** `os` as module-level code uses it to pick constants: the environment, read at compile time. */
const os: Record<string, Value> = {
  environ: { k: 'environ' },
  getenv: { k: 'builtin', name: 'getenv' },
};

/** `enum`, for module-level `class X(Enum)` constants selectors. */
const enumModule: Record<string, Value> = builtins(['Enum', 'IntEnum', 'StrEnum']);

/** `types` and `dataclasses`, for constants grouped in namespaces and dataclasses. */
const types: Record<string, Value> = builtins(['SimpleNamespace']);
const dataclasses: Record<string, Value> = builtins(['dataclass']);

const KNOWN: Record<string, Record<string, Value>> = {
  'gt4py.cartesian.gtscript': GTSCRIPT_NAMES,
  'gt4py.gtscript': GTSCRIPT_NAMES,
  numpy,
  math,
  'ndsl.dsl.typing': ndslTyping(),
  orch,
  'orch.ndsl': orchNdsl,
  os,
  enum: enumModule,
  types,
  dataclasses,
  'ndsl.dsl.gt4py': GTSCRIPT_NAMES,
};

/** Packages whose submodules we know: importing them yields a module value with members. */
const PACKAGES: Record<string, Record<string, string>> = {
  gt4py: { cartesian: 'gt4py.cartesian', gtscript: 'gt4py.gtscript' },
  'gt4py.cartesian': { gtscript: 'gt4py.cartesian.gtscript' },
  ndsl: { dsl: 'ndsl.dsl' },
  'ndsl.dsl': { typing: 'ndsl.dsl.typing', gt4py: 'ndsl.dsl.gt4py' },
};

export function knownModule(name: string): Value | undefined {
  if (KNOWN[name]) return { k: 'module', name, scope: null, members: KNOWN[name] };
  if (PACKAGES[name]) {
    const members: Record<string, Value> = {};
    for (const [attr, full] of Object.entries(PACKAGES[name])) {
      const sub = knownModule(full);
      if (sub) members[attr] = sub;
    }
    return { k: 'module', name, scope: null, members };
  }
  return undefined;
}

/** Python's own builtins visible in every module. */
export const PY_BUILTINS: Record<string, Value> = {
  float: { k: 'dtype', dtype: 'float64' },
  int: { k: 'dtype', dtype: 'int64' },
  bool: { k: 'dtype', dtype: 'bool' },
  abs: { k: 'builtin', name: 'abs' },
  min: { k: 'builtin', name: 'min' },
  max: { k: 'builtin', name: 'max' },
  range: { k: 'builtin', name: 'range' },
  len: { k: 'builtin', name: 'len' },
  round: { k: 'builtin', name: 'round' },
  True: { k: 'bool', value: true },
  False: { k: 'bool', value: false },
  None: { k: 'none' },
};
