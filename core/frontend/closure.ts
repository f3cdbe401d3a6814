import { DTYPES as ALL_DTYPES } from '../ir/dtypes.js';
import { fail } from '../diagnostics.js';
import type { Axes, DType } from '../ir/types.js';
import type { Value } from './values.js';
import { closureFileInvalid, closureNotJson } from '../diagnostics/usageErrors.js';

/**
 * The resolved closure of an orchestrated method (an NDSL component's `__call__`), as the
 * Python package describes it from the live object at its first compiled call
 * (`python/orch/ndsl/closure.py`). It is data: part of the cache key, shown by `orch info`.
 * Array pointers are not in it; arrays and floats are program parameters named `param`.
 */
export interface Closure {
  /** The component's class: the module file and the class name. */
  file: string;
  class: string;
  method: string;
  /** The method's parameters (other than self), described from the first call's arguments. */
  args: Record<string, ClosureNode>;
  /** What the method reads through `self`. */
  self: Extract<ClosureNode, { kind: 'component' }>;
}

/** A compile-time value, tagged so ints, floats and enums survive JSON. */
export type ClosureValue =
  | { int: number }
  | { float: number }
  | { bool: boolean }
  | { str: string }
  | { none: true }
  | { tuple: ClosureValue[] }
  | { enum: string; name: string; value: ClosureValue }
  | { axis: 'I' | 'J' | 'K'; index: number; offset: number }
  /** An axis object (`gtscript.I`, `gtscript.Axis("J")`): `field[AXIS - 1]`, `AXIS[0]`. */
  | { axisObject: 'I' | 'J' | 'K' }
  /** A `types.SimpleNamespace` (or a plain object's attributes): `NS.a.b`. */
  | { namespace: string; attrs: Record<string, ClosureValue> }
  | { function: string };

export type ClosureNode =
  /** An array bound by pointer: a program field parameter. */
  | { kind: 'array'; param: string; dtype: DType; axes: Axes }
  /** A runtime scalar (a float attribute, a scalar argument): a program scalar parameter. */
  | { kind: 'scalar'; param: string; dtype: DType }
  /** Configuration: specialized at compile time. */
  | { kind: 'value'; value: ClosureValue }
  /**
   * A plain object, dict, list or dataclass: only the members the method reads (`.name`, `[key]`).
   * An NDSL WrappedHaloUpdater is one too: with `halo`, its `update()`, `start()` and `wait()`
   * are the compiled exchange of those parameters; with `halo_callback`, NDSL's, called back (why).
   */
  | { kind: 'record'; type: string; items: Record<string, ClosureNode>; halo?: ClosureHalo; halo_callback?: string }
  /** An orchestrated component (inlined); calling it calls `method`. */
  | { kind: 'component'; file: string; class: string; method: string; items: Record<string, ClosureNode> }
  /** Another orchestrated method of the owning component (inlined). */
  | { kind: 'method'; name: string }
  /** A stencil: its definition, its externals, and the origin/domain a FrozenStencil fixes. */
  | { kind: 'stencil'; file: string; name: string; externals: Record<string, ClosureValue>; origin: number[] | null; domain: number[] | null }
  /** A host callback (`@dace_inhibitor` / `@callback`); `path` names it for the Python host. */
  | { kind: 'callback'; path: string; file: string; class: string | null; name: string }
  /** Something orch cannot compile: an error where the method uses it. */
  | { kind: 'unsupported'; type: string; why: string; hint: string };

/** A WrappedHaloUpdater compiled: the array parameters it exchanges and its width (NDSL's n_points). */
export interface ClosureHalo {
  fields: string[];
  width: number;
}

const DTYPES = new Set<string>(ALL_DTYPES);
const AXES = new Set(['IJK', 'IJ', 'IK', 'JK', 'I', 'J', 'K']);

/** Parses and checks a closure description (from `--closure FILE`). */
export function parseClosure(text: string, from: string): Closure {
  let c: Closure;
  try {
    c = JSON.parse(text) as Closure;
  } catch (e) {
    throw closureNotJson(from, (e as Error).message);
  }
  const bad = (what: string) => fail(closureFileInvalid(from, what));
  if (!c || typeof c !== 'object' || typeof c.file !== 'string' || typeof c.class !== 'string' || typeof c.method !== 'string') bad('expected {file, class, method, args, self}');
  if (!c.self || c.self.kind !== 'component') bad('self must be a component');
  const check = (n: ClosureNode, where: string): void => {
    if (!n || typeof n !== 'object') return bad(`${where} is not a closure node`);
    if (n.kind === 'array' && (!DTYPES.has(n.dtype) || !AXES.has(n.axes))) bad(`${where}: array of dtype ${n.dtype}, axes ${n.axes}`);
    if (n.kind === 'scalar' && !DTYPES.has(n.dtype)) bad(`${where}: scalar of dtype ${n.dtype}`);
    if (n.kind === 'record' && n.halo && (!Array.isArray(n.halo.fields) || !n.halo.fields.every((f) => typeof f === 'string') || !Number.isInteger(n.halo.width))) bad(`${where}: halo must be {fields, width}`);
    if (n.kind === 'record' || n.kind === 'component') for (const [k, v] of Object.entries(n.items)) check(v, where + k);
  };
  for (const [k, v] of Object.entries(c.args ?? {})) check(v, k);
  check(c.self, 'self');
  return c;
}

/** A closure value as the frontend's compile-time Value. */
export function closureValue(v: ClosureValue): Value {
  if ('int' in v) return { k: 'num', value: v.int, isInt: true };
  if ('float' in v) return { k: 'num', value: v.float, isInt: false };
  if ('bool' in v) return { k: 'bool', value: v.bool };
  if ('str' in v) return { k: 'str', value: v.str };
  if ('none' in v) return { k: 'none' };
  if ('tuple' in v) return { k: 'tuple', items: v.tuple.map(closureValue) };
  if ('enum' in v) return { k: 'enumMember', enum: v.enum, name: v.name, value: closureValue(v.value) };
  if ('axis' in v) return { k: 'axisIndex', axis: v.axis, index: v.index, offset: v.offset };
  if ('axisObject' in v) return { k: 'axis', axis: v.axisObject };
  if ('namespace' in v) return { k: 'namespace', name: v.namespace, attrs: Object.fromEntries(Object.entries(v.attrs).map(([k, x]) => [k, closureValue(x)])) };
  return { k: 'functionRef', path: v.function };
}

/** The closure as `orch info` lists it: one line per member the method reads. */
export function describeClosure(c: Closure): string[] {
  const lines = [`closure of ${c.class}.${c.method}:`];
  const value = (v: ClosureValue): string => {
    if ('tuple' in v) return `(${v.tuple.map(value).join(', ')})`;
    if ('enum' in v) return `${v.enum}.${v.name}`;
    if ('axis' in v) return `${v.axis}[${v.index}]${v.offset >= 0 ? '+' : ''}${v.offset}`;
    if ('axisObject' in v) return v.axisObject;
    if ('namespace' in v) return `${v.namespace}(${Object.entries(v.attrs).map(([k, x]) => `${k}=${value(x)}`).join(', ')})`;
    if ('function' in v) return v.function;
    if ('none' in v) return 'None';
    if ('bool' in v) return v.bool ? 'True' : 'False';
    return JSON.stringify(Object.values(v)[0]);
  };
  const walk = (n: ClosureNode, name: string) => {
    switch (n.kind) {
      case 'array':
        return lines.push(`  ${name}: array ${n.dtype} ${n.axes} (parameter ${n.param})`);
      case 'scalar':
        return lines.push(`  ${name}: runtime ${n.dtype} (parameter ${n.param})`);
      case 'value':
        return lines.push(`  ${name}: compile-time ${value(n.value)}`);
      case 'stencil': {
        const ext = Object.entries(n.externals).map(([k, v]) => `${k}=${value(v)}`);
        return lines.push(`  ${name}: stencil ${n.name}${n.origin ? ` origin (${n.origin.join(', ')})` : ''}${n.domain ? ` domain (${n.domain.join(', ')})` : ''}${ext.length ? ` externals ${ext.join(', ')}` : ''}`);
      }
      case 'callback':
        return lines.push(`  ${name}: callback ${n.class ? `${n.class}.` : ''}${n.name}`);
      case 'method':
        return lines.push(`  ${name}: orchestrated method ${n.name} (inlined)`);
      case 'unsupported':
        return lines.push(`  ${name}: ${n.type} (unsupported: ${n.why})`);
      case 'component':
        if (name !== 'self') lines.push(`  ${name}: component ${n.class} (inlined ${n.method})`);
        for (const [k, v] of Object.entries(n.items)) walk(v, name + k);
        return;
      case 'record':
        if (n.halo) return lines.push(`  ${name}: ${n.type}: compiled halo exchange of ${n.halo.fields.join(', ')} (width ${n.halo.width})`);
        if (n.halo_callback) lines.push(`  ${name}: ${n.type}: called back (${n.halo_callback})`);
        for (const [k, v] of Object.entries(n.items)) walk(v, name + k);
        return;
    }
  };
  for (const [k, v] of Object.entries(c.args)) walk(v, k);
  walk(c.self, 'self');
  return lines;
}
