import type { Axes, DType } from '../ir/types.js';
import { isDType, isIntDType } from '../ir/dtypes.js';
import { roundHalfEven } from '../interpreter/mathFunctions.js';
import type { PyExpr } from '../python/ast.js';
import { scopeName, type FunctionInfo, type Value } from './values.js';
import { constDivisionByZero, enumNoMember, envUnset, notANumber } from '../diagnostics/frontendErrors.js';

/**
 * Compile-time evaluation of Python expressions with Python's numeric semantics:
 * module constants, type annotations, externals, decorator arguments, compile-time
 * program arithmetic. `lookup` resolves bare names.
 */
type NameLookup = (name: string, e: PyExpr) => Value | undefined;

/** What evaluation needs from the module loader beyond names. */
interface EvalHooks {
  /** Reads an environment variable for `os.environ` / `os.getenv` (the loader records the read). */
  env(name: string): string | undefined;
  /** Calls a plain module-level function at compile time. */
  call(fn: FunctionInfo, args: Value[], kwargs: Record<string, Value>, e: Extract<PyExpr, { t: 'call' }>): Value;
}

const NO_HOOKS: EvalHooks = {
  env: () => undefined,
  call: (fn, _args, _kwargs, e) => ({ k: 'opaque', why: `function '${fn.name}' is not evaluated here`, loc: e.loc }),
};

export function pyFloorDiv(a: number, b: number, isInt: boolean): number {
  if (isInt) {
    if (b === 0) throw new RangeError('integer division by zero');
    return Math.floor(a / b);
  }
  return Math.floor(a / b);
}

export function pyMod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

function num(value: number, isInt: boolean): Value {
  return { k: 'num', value, isInt };
}

export function truthy(v: Value): boolean | undefined {
  if (v.k === 'bool') return v.value;
  if (v.k === 'num') return v.value !== 0;
  if (v.k === 'none') return false;
  if (v.k === 'str') return v.value.length > 0;
  if (v.k === 'tuple') return v.items.length > 0;
  return undefined;
}

/** Python's == on compile-time values; undefined when orch cannot tell. */
function sameConstant(a: Value, b: Value): boolean | undefined {
  if (a.k === 'enumMember' && b.k === 'enumMember') return a.enum === b.enum && a.name === b.name;
  if (a.k === 'tuple' && b.k === 'tuple') {
    if (a.items.length !== b.items.length) return false;
    let all = true;
    for (let i = 0; i < a.items.length; i++) {
      const s = sameConstant(a.items[i], b.items[i]);
      if (s === undefined) return undefined;
      all &&= s;
    }
    return all;
  }
  const plain = (v: Value) => v.k === 'str' || v.k === 'num' || v.k === 'bool' || v.k === 'none' || v.k === 'enumMember' || v.k === 'tuple';
  if (!plain(a) || !plain(b)) return undefined;
  if (a.k === 'str' && b.k === 'str') return a.value === b.value;
  if (a.k === 'none' || b.k === 'none') return a.k === b.k;
  if ((a.k === 'num' || a.k === 'bool') && (b.k === 'num' || b.k === 'bool')) return Number(a.value) === Number(b.value);
  return false;
}

export function numericBinary(op: string, a: Value, b: Value, e: PyExpr): Value | undefined {
  const toNum = (v: Value) => (v.k === 'bool' ? { value: v.value ? 1 : 0, isInt: true } : v.k === 'num' ? { value: v.value, isInt: v.isInt } : undefined);
  // axis-index arithmetic: gtscript.I[0] + 3
  if (a.k === 'axisIndex' && b.k === 'num' && b.isInt && (op === '+' || op === '-')) {
    return { ...a, offset: a.offset + (op === '+' ? b.value : -b.value) };
  }
  // axis offsets: field[I + 1], field[K - 1]
  if ((a.k === 'axis' || a.k === 'axisOffset') && b.k === 'num' && b.isInt && (op === '+' || op === '-')) {
    return { k: 'axisOffset', axis: a.axis, offset: (a.k === 'axisOffset' ? a.offset : 0) + (op === '+' ? b.value : -b.value) };
  }
  if (a.k === 'str' && b.k === 'str' && op === '+') return { k: 'str', value: a.value + b.value };
  // configuration compared at compile time: strings, enum members (by enum and name), None, tuples
  const symbolic = (v: Value) => v.k === 'str' || v.k === 'enumMember' || v.k === 'none' || v.k === 'tuple';
  if ((op === '==' || op === '!=') && (symbolic(a) || symbolic(b))) {
    const same = sameConstant(a, b);
    if (same !== undefined) return { k: 'bool', value: op === '==' ? same : !same };
  }
  const x = toNum(a);
  const y = toNum(b);
  if (!x || !y) return undefined;
  const bothInt = x.isInt && y.isInt;
  switch (op) {
    case '+':
      return num(x.value + y.value, bothInt);
    case '-':
      return num(x.value - y.value, bothInt);
    case '*':
      return num(x.value * y.value, bothInt);
    case '/':
      if (y.value === 0) throw constDivisionByZero(e.loc);
      return num(x.value / y.value, false);
    case '//':
      if (y.value === 0) throw constDivisionByZero(e.loc);
      return num(pyFloorDiv(x.value, y.value, bothInt), bothInt);
    case '%':
      return num(pyMod(x.value, y.value), bothInt);
    case '**':
      return num(Math.pow(x.value, y.value), bothInt && y.value >= 0);
    case '<':
      return { k: 'bool', value: x.value < y.value };
    case '<=':
      return { k: 'bool', value: x.value <= y.value };
    case '>':
      return { k: 'bool', value: x.value > y.value };
    case '>=':
      return { k: 'bool', value: x.value >= y.value };
    case '==':
      return { k: 'bool', value: x.value === y.value };
    case '!=':
      return { k: 'bool', value: x.value !== y.value };
    default:
      return undefined;
  }
}

/** Evaluates `e`, or returns an opaque value saying why it could not. */
export function constEval(e: PyExpr, lookup: NameLookup, hooks: EvalHooks = NO_HOOKS): Value {
  const opaque = (why: string): Value => ({ k: 'opaque', why, loc: e.loc });
  switch (e.t) {
    case 'num':
      return num(e.value, e.isInt);
    case 'str':
      return { k: 'str', value: e.value };
    case 'const':
      return e.value === null ? { k: 'none' } : { k: 'bool', value: e.value };
    case 'name': {
      if (e.id === '...') return { k: 'builtin', name: '...' };
      return lookup(e.id, e) ?? opaque(`name '${e.id}' is not defined`);
    }
    case 'attr': {
      const base = constEval(e.value, lookup, hooks);
      return attribute(base, e.attr, e) ?? opaque(`'${e.attr}' is not an attribute orch knows of ${base.k === 'module' ? `module '${base.name}'` : 'this value'}`);
    }
    case 'tuple':
    case 'list':
      return { k: 'tuple', items: e.elts.map((x) => constEval(x, lookup, hooks)) };
    case 'unary': {
      const v = constEval(e.operand, lookup, hooks);
      if (e.op === 'not') {
        const t = truthy(v);
        return t === undefined ? opaque('operand of not is not a constant') : { k: 'bool', value: !t };
      }
      if (v.k === 'num') return num(e.op === '-' ? -v.value : v.value, v.isInt);
      if (v.k === 'bool') return num(e.op === '-' ? -Number(v.value) : Number(v.value), true);
      return v.k === 'opaque' ? v : opaque('operand is not a number');
    }
    case 'binop':
    case 'compare': {
      const a = constEval(e.left, lookup, hooks);
      if (a.k === 'opaque') return a;
      const b = constEval(e.right, lookup, hooks);
      if (b.k === 'opaque') return b;
      if (e.t === 'compare' && (e.op === 'in' || e.op === 'not in') && b.k === 'environ' && a.k === 'str') {
        const present = hooks.env(a.value) !== undefined;
        return { k: 'bool', value: e.op === 'in' ? present : !present };
      }
      if (e.t === 'compare' && (e.op === 'in' || e.op === 'not in') && (b.k === 'tuple' || b.k === 'dict')) {
        const key = JSON.stringify(a);
        const present = b.k === 'tuple' ? b.items.some((x) => JSON.stringify(x) === key) : a.k === 'str' && a.value in b.entries;
        return { k: 'bool', value: e.op === 'in' ? present : !present };
      }
      if (e.t === 'compare' && (e.op === '==' || e.op === '!=' || e.op === 'is' || e.op === 'is not') && !(a.k === 'num' || a.k === 'bool')) {
        const eq = JSON.stringify(a) === JSON.stringify(b);
        return { k: 'bool', value: e.op === '==' || e.op === 'is' ? eq : !eq };
      }
      return numericBinary(e.op, a, b, e) ?? opaque(`'${e.op}' is not supported on these compile-time values`);
    }
    case 'boolop': {
      const a = constEval(e.left, lookup, hooks);
      const ta = truthy(a);
      if (ta === undefined) return a.k === 'opaque' ? a : opaque('operand is not a constant');
      if (e.op === 'and' ? !ta : ta) return a;
      return constEval(e.right, lookup, hooks);
    }
    case 'ifexp': {
      const t = truthy(constEval(e.test, lookup, hooks));
      if (t === undefined) return opaque('condition is not a constant');
      return constEval(t ? e.body : e.orelse, lookup, hooks);
    }
    case 'subscript': {
      const base = constEval(e.value, lookup, hooks);
      const index = e.index.map((x) => constEval(x, lookup, hooks));
      if (base.k === 'environ') {
        // os.environ["NAME"]: a KeyError in Python when unset
        if (index.length !== 1 || index[0].k !== 'str') return opaque('os.environ is indexed with a string');
        const v = hooks.env(index[0].value);
        if (v === undefined) throw envUnset(index[0].value, e.loc);
        return { k: 'str', value: v };
      }
      return subscriptValue(base, index, e);
    }
    case 'call':
      return callValue(e, lookup, hooks);
    case 'dict': {
      const entries: Record<string, Value> = {};
      for (let i = 0; i < e.keys.length; i++) {
        const k = constEval(e.keys[i], lookup, hooks);
        if (k.k !== 'str') return opaque('dict keys must be strings');
        entries[k.value] = constEval(e.values[i], lookup, hooks);
      }
      return { k: 'dict', entries };
    }
    default:
      return opaque(`${e.t} expressions are not compile-time constants`);
  }
}

export function attribute(base: Value, attr: string, e: PyExpr): Value | undefined {
  void e;
  if (base.k === 'environ' && attr === 'get') return { k: 'environGet' };
  if (base.k === 'enum') return base.members[attr];
  if (base.k === 'namespace') return base.attrs[attr];
  if (base.k === 'class') return base.cls.attrs.get(attr);
  if (base.k === 'enumMember' && attr === 'value') return base.value;
  if (base.k === 'enumMember' && attr === 'name') return { k: 'str', value: base.name };
  if (base.k === 'str' && (attr === 'upper' || attr === 'lower' || attr === 'strip')) return { k: 'strMethod', value: base.value, method: attr };
  if (base.k === 'module') {
    if (base.members && attr in base.members) return base.members[attr];
    if (base.scope) return scopeName(base.scope, attr);
    return undefined;
  }
  return undefined;
}

function axesOf(v: Value): Axes | undefined {
  if (v.k === 'axes') return v.axes;
  if (v.k === 'axis') return v.axis;
  if (v.k === 'tuple' && v.items.every((x) => x.k === 'axis')) {
    const s = v.items.map((x) => (x as { axis: string }).axis).join('');
    if (['IJK', 'IJ', 'IK', 'JK', 'I', 'J', 'K'].includes(s)) return s as Axes;
  }
  return undefined;
}

function subscriptValue(base: Value, index: Value[], e: PyExpr): Value {
  if (base.k === 'generic' && base.name === 'Field') {
    // Field[dtype] | Field[axes, dtype] | Field[(I, J), dtype], where dtype may be
    // (dtype, (n, ...)): data dimensions (GT4Py's _FieldDescriptorMaker)
    const items = index.length === 1 && index[0].k === 'tuple' ? index[0].items : index;
    const withDims = items.length === 2 && items[0].k === 'dtype' ? dtypeWithDims({ k: 'tuple', items }) : undefined;
    const dt = withDims ?? dtypeWithDims(items[items.length - 1]) ?? items[items.length - 1];
    const dtype = dtypeOf(dt.k === 'dataType' ? dt.dtype : dt);
    const axes = withDims ? 'IJK' : items.length > 1 ? axesOf(items.length === 2 ? items[0] : { k: 'tuple', items: items.slice(0, -1) }) : 'IJK';
    if (dtype && axes) return { k: 'fieldType', dtype, axes, ...(dt.k === 'dataType' ? { dims: dt.dims } : {}) };
    return { k: 'opaque', why: unsupportedFieldForm(items), loc: e.loc };
  }
  if (base.k === 'generic' && base.name === 'GlobalTable') {
    // GlobalTable[(dtype, (n, ...))]: data dimensions without spatial axes
    const dt = dtypeWithDims(index.length === 1 ? index[0] : { k: 'tuple', items: index });
    const dtype = dt && dtypeOf(dt.dtype);
    if (dt && dtype) return { k: 'fieldType', dtype, axes: '', dims: dt.dims };
    return { k: 'opaque', why: 'a GlobalTable is declared GlobalTable[(dtype, (n, ...))], e.g. GlobalTable[(np.float64, (4,))]', loc: e.loc };
  }
  if (base.k === 'axis' && index.length === 1 && index[0].k === 'num' && index[0].isInt) {
    return { k: 'axisIndex', axis: base.axis, index: index[0].value, offset: 0 };
  }
  if (base.k === 'tuple' && index.length === 1 && index[0].k === 'num' && index[0].isInt) {
    const i = index[0].value < 0 ? base.items.length + index[0].value : index[0].value;
    return base.items[i] ?? { k: 'opaque', why: 'tuple index out of range', loc: e.loc };
  }
  if (base.k === 'builtin' && base.name === 'compiletime') return { k: 'compiletime', inner: index[0] };
  if (base.k === 'enum' && index.length === 1 && index[0].k === 'str') {
    // Enum["NAME"]: a KeyError in Python when there is no such member
    const member = base.members[index[0].value];
    if (!member) throw enumNoMember(base.name, JSON.stringify(index[0].value), Object.keys(base.members).join(', '), e.loc);
    return member;
  }
  if (base.k === 'dict' && index.length === 1 && index[0].k === 'str') {
    return base.entries[index[0].value] ?? { k: 'opaque', why: `key ${JSON.stringify(index[0].value)} is not in the dict`, loc: e.loc };
  }
  return { k: 'opaque', why: 'subscript is not a compile-time value', loc: e.loc };
}

function callValue(e: Extract<PyExpr, { t: 'call' }>, lookup: NameLookup, hooks: EvalHooks): Value {
  const f = constEval(e.func, lookup, hooks);
  const args = e.args.map((a) => constEval(a, lookup, hooks));
  const opaque = (why: string): Value => ({ k: 'opaque', why, loc: e.loc });
  if (f.k === 'function' && f.fn.kind === 'plain') {
    const kwargs: Record<string, Value> = {};
    for (const kw of e.kwargs) if (kw.name) kwargs[kw.name] = constEval(kw.value, lookup, hooks);
    return hooks.call(f.fn, args, kwargs, e);
  }
  if ((f.k === 'builtin' && f.name === 'SimpleNamespace') || f.k === 'class') return namespaceValue(f, args, e, lookup, hooks);
  if (f.k === 'enum' && args.length === 1) {
    // Enum("value"): the member with that value
    const member = Object.values(f.members).find((m) => m.k === 'enumMember' && JSON.stringify(m.value) === JSON.stringify(args[0]));
    return member ?? opaque(`enum '${f.name}' has no member with value ${JSON.stringify(args[0])}`);
  }
  if (f.k === 'environGet' || (f.k === 'builtin' && f.name === 'getenv')) {
    // os.environ.get(name[, default]) / os.getenv(name[, default])
    const kw = e.kwargs.find((k) => k.name === 'default');
    const dflt = args[1] ?? (kw ? constEval(kw.value, lookup, hooks) : { k: 'none' });
    if (args.length < 1 || args.length > 2 || args[0].k !== 'str') return opaque('the environment is read with a variable name string: os.environ.get("NAME", default)');
    const v = hooks.env(args[0].value);
    return v === undefined ? dflt : { k: 'str', value: v };
  }
  if (f.k === 'strMethod') {
    if (args.length) return opaque(`str.${f.method}() is evaluated without arguments only`);
    const v = f.method === 'upper' ? f.value.toUpperCase() : f.method === 'lower' ? f.value.toLowerCase() : f.value.trim();
    return { k: 'str', value: v };
  }
  if (f.k === 'dtype' && args.length === 1 && args[0].k === 'str') {
    // int("3"), float("1e-3"), bool("x") as Python converts strings (environment values)
    const text = args[0].value.trim();
    if (f.dtype === 'bool') return { k: 'bool', value: args[0].value.length > 0 };
    const isInt = isIntDType(f.dtype);
    const valid = isInt ? /^[+-]?\d+$/.test(text) : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|nan)$/i.test(text);
    if (!valid) throw notANumber(isInt, JSON.stringify(args[0].value), e.loc);
    return num(Number(/inf/i.test(text) ? text.replace(/inf/i, 'Infinity') : text), isInt);
  }
  if (f.k === 'dtype' && args.length === 1) {
    const a = args[0];
    const n = a.k === 'num' ? a.value : a.k === 'bool' ? Number(a.value) : undefined;
    if (n === undefined) return opaque('conversion of a non-constant');
    if (f.dtype === 'bool') return { k: 'bool', value: n !== 0 };
    if (isIntDType(f.dtype)) return num(Math.trunc(n), true);
    return num(n, false);
  }
  if (f.k === 'builtin' && f.name === 'compiletime') return { k: 'compiletime', inner: args[0] ?? { k: 'none' } };
  if (f.k === 'builtin') {
    const nums = args.map((a) => (a.k === 'num' ? a.value : a.k === 'bool' ? Number(a.value) : NaN));
    const allInt = args.every((a) => (a.k === 'num' && a.isInt) || a.k === 'bool');
    if (nums.some((x) => Number.isNaN(x)) && !args.every((a) => a.k === 'num')) return opaque(`arguments of ${f.name}() are not constants`);
    switch (f.name) {
      case 'compiletime':
        return { k: 'compiletime', inner: args[0] };
      case 'abs':
        return num(Math.abs(nums[0]), allInt);
      case 'min':
        return num(Math.min(...nums), allInt);
      case 'max':
        return num(Math.max(...nums), allInt);
      case 'sqrt':
        return num(Math.sqrt(nums[0]), false);
      case 'exp':
        return num(Math.exp(nums[0]), false);
      case 'log':
        return num(nums.length === 2 ? Math.log(nums[0]) / Math.log(nums[1]) : Math.log(nums[0]), false);
      case 'log10':
        return num(Math.log10(nums[0]), false);
      case 'sin':
        return num(Math.sin(nums[0]), false);
      case 'cos':
        return num(Math.cos(nums[0]), false);
      case 'tan':
        return num(Math.tan(nums[0]), false);
      case 'pow':
        return num(Math.pow(nums[0], nums[1]), false);
      case 'floor':
        return num(Math.floor(nums[0]), true);
      case 'ceil':
        return num(Math.ceil(nums[0]), true);
      case 'round':
        // Python's round(x) sends halfway cases to the even integer (round(2.5) == 2)
        return num(roundHalfEven(nums[0]), true);
      default:
        return opaque(`${f.name}() is not evaluated at compile time`);
    }
  }
  if (f.k === 'opaque') return f;
  return opaque('call of a function that is not a compile-time builtin');
}

/**
 * `SimpleNamespace(a=1, b=...)`, or a call of a class without methods (a dataclass or a plain
 * class of constants): an object whose attributes are the class-level values, the positional
 * arguments in their order, then the keyword arguments.
 */
function namespaceValue(f: Extract<Value, { k: 'builtin' } | { k: 'class' }>, args: Value[], e: Extract<PyExpr, { t: 'call' }>, lookup: NameLookup, hooks: EvalHooks): Value {
  const opaque = (why: string): Value => ({ k: 'opaque', why, loc: e.loc });
  const attrs: Record<string, Value> = f.k === 'class' ? Object.fromEntries(f.cls.attrs) : {};
  if (f.k === 'class' && f.cls.methods.size) return opaque(`class '${f.cls.name}' has methods, so its instances are not evaluated at compile time`);
  const names = Object.keys(attrs);
  if (args.length > names.length) return opaque(`${f.k === 'class' ? f.cls.name : 'SimpleNamespace'}() takes ${names.length} positional arguments here, got ${args.length}`);
  args.forEach((a, i) => (attrs[names[i]] = a));
  for (const kw of e.kwargs) {
    if (!kw.name) return opaque('**kwargs are not evaluated at compile time');
    if (f.k === 'class' && !(kw.name in attrs)) return opaque(`class '${f.cls.name}' has no field '${kw.name}' with a default`);
    attrs[kw.name] = constEval(kw.value, lookup, hooks);
  }
  return { k: 'namespace', name: f.k === 'class' ? f.cls.name : 'SimpleNamespace', attrs };
}

/** The dtype a `Field[...]` item names (a dtype, or its name as a string). */
function dtypeOf(v: Value): DType | undefined {
  if (v.k === 'dtype') return v.dtype;
  if (v.k === 'str' && isDType(v.value)) return v.value;
  return undefined;
}

/** `(dtype, (n, ...))` or `(dtype, n)`: a dtype with data dimensions, each a positive int. */
function dtypeWithDims(v: Value | undefined): { k: 'dataType'; dtype: Value; dims: number[] } | undefined {
  if (v?.k !== 'tuple' || v.items.length !== 2) return undefined;
  const [dt, d] = v.items;
  const dims = d.k === 'num' ? [d] : d.k === 'tuple' ? d.items : null;
  if (!dims || !dims.length || !dims.every((x) => x.k === 'num' && x.isInt && x.value > 0)) return undefined;
  return { k: 'dataType', dtype: dt, dims: dims.map((x) => (x as { value: number }).value) };
}

/** Why a `Field[...]` annotation is not one orch compiles, naming what GT4Py does with it. */
function unsupportedFieldForm(items: Value[]): string {
  const dt = items[items.length - 1];
  const dataDims = (v: Value | undefined) => v?.k === 'tuple' && v.items.every((x) => x.k === 'num');
  if ((dt.k === 'tuple' && dt.items.length === 2 && dataDims(dt.items[1])) || (items.length >= 2 && items[items.length - 2].k === 'dtype' && dataDims(dt))) {
    return 'data dimensions are written Field[(dtype, (n, ...))] or Field[axes, (dtype, (n, ...))], each extent a positive integer';
  }
  if (dt.k === 'str' && /^uint(8|16|32|64)$/.test(dt.value)) return unsignedWhy(dt.value);
  if (dt.k === 'opaque') return dt.why;
  return 'unsupported Field[...] form; use Field[dtype] or Field[IJ, dtype]';
}

/** GT4Py's DataType has no unsigned integers (its frontend maps them to INVALID), nor has orch. */
export function unsignedWhy(name: string): string {
  return `${name} is not a GT4Py field dtype (GT4Py raises "Invalid data type descriptor": its integers are int8, int16, int32 and int64): store the data as a signed type wide enough for it`;
}
