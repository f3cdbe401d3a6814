import { badExternal } from '../diagnostics/codes.js';
import type { Value } from './values.js';
import { defineNotNameValue, defineNotNumber, externalValueUnusable, externalsNotJson, externalsNotObject } from '../diagnostics/usageErrors.js';

/**
 * `--externals` JSON -> Values. JSON.parse forgets whether `1.0` was written as a float,
 * and Python types (and so GT4Py's temporaries) depend on it, so numbers are kept with
 * their spelling: a number with '.', 'e' or 'E' is a float. `{"function": "pkg.mod.f"}` names
 * a @gtscript.function by import path.
 */
export function parseExternals(text: string): Record<string, Value> {
  let marked: unknown;
  try {
    marked = JSON.parse(markFloats(text));
  } catch (e) {
    throw externalsNotJson((e as Error).message);
  }
  if (typeof marked !== 'object' || marked === null || Array.isArray(marked)) {
    throw externalsNotObject();
  }
  const out: Record<string, Value> = {};
  for (const [k, v] of Object.entries(marked as Record<string, unknown>)) out[k] = toValue(k, v);
  return out;
}

const FLOAT_TAG = '\u0000f:';

function markFloats(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const m = /^-?\d+(\.\d*)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (m && (c === '-' || /\d/.test(c))) {
      out += m[1] !== undefined || m[2] !== undefined ? JSON.stringify(FLOAT_TAG + m[0]) : m[0];
      i += m[0].length;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

function toValue(key: string, v: unknown): Value {
  if (typeof v === 'string' && v.startsWith(FLOAT_TAG)) return { k: 'num', value: Number(v.slice(FLOAT_TAG.length)), isInt: false };
  if (typeof v === 'number') return { k: 'num', value: v, isInt: true };
  if (typeof v === 'boolean') return { k: 'bool', value: v };
  if (typeof v === 'string') return { k: 'str', value: v };
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const tagged = taggedValue(key, o);
    if (tagged) return tagged;
    if ('function' in o) {
      const fn = o.function;
      if (typeof fn !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(fn)) {
        throw badExternal(key, `"function" must be a dotted import path such as "package.module.name"`, { hint: `write {"${key}": {"function": "mypkg.helpers.${key}"}}` });
      }
      return { k: 'functionRef', path: fn };
    }
    if ('axisObject' in o) {
      const axis = o.axisObject;
      if (axis !== 'I' && axis !== 'J' && axis !== 'K') throw badExternal(key, `axisObject must be "I", "J" or "K"`, { hint: '{"axisObject": "I"}' });
      return { k: 'axis', axis };
    }
    if ('namespace' in o && o.attrs && typeof o.attrs === 'object' && !Array.isArray(o.attrs)) {
      // a types.SimpleNamespace: NS.a.b, each attribute an external value of its own
      const attrs = Object.fromEntries(Object.entries(o.attrs as Record<string, unknown>).map(([k, x]) => [k, toValue(`${key}.${k}`, x)]));
      return { k: 'namespace', name: String(o.namespace), attrs };
    }
    if ('axis' in o) {
      const axis = o.axis;
      if (axis !== 'I' && axis !== 'J' && axis !== 'K') throw badExternal(key, `axis must be "I", "J" or "K"`, { hint: '{"axis": "I", "index": 0, "offset": 3}' });
      return { k: 'axisIndex', axis, index: axisInt(key, 'index', o.index), offset: axisInt(key, 'offset', o.offset) };
    }
  }
  throw externalValueUnusable(key);
}

/** An axis index's "index" or "offset": a JSON integer (GT4Py's AxisIndex holds ints) that generated C++ holds exactly. */
function axisInt(key: string, field: 'index' | 'offset', x: unknown): number {
  if (x === undefined) return 0;
  if (typeof x === 'number' && Number.isInteger(x) && Math.abs(x) <= 2 ** 31 - 1) return x;
  const written = typeof x === 'string' && x.startsWith(FLOAT_TAG) ? x.slice(FLOAT_TAG.length) : JSON.stringify(x);
  throw badExternal(key, `"${field}" must be an integer from -2147483647 to 2147483647, got ${written}`, { hint: `write {"${key}": {"axis": "I", "index": 0, "offset": 3}} with plain integers` });
}

/**
 * The tagged form the Python package writes for a stencil object's externals
 * (`{"int": 1}`, `{"float": 1.0}`, `{"tuple": [...]}`...): ints and floats stay apart
 * exactly, as they do in a closure. Undefined for any other object.
 */
function taggedValue(key: string, o: Record<string, unknown>): Value | undefined {
  const keys = Object.keys(o);
  if (keys.length !== 1 && !(keys.length === 3 && 'enum' in o)) return undefined;
  const num = (x: unknown) => (typeof x === 'string' && x.startsWith(FLOAT_TAG) ? Number(x.slice(FLOAT_TAG.length)) : typeof x === 'number' ? x : NaN);
  const bad = (what: string): never => {
    throw badExternal(key, what, { hint: 'tagged values are {"int": 1}, {"float": 1.5}, {"bool": true}, {"str": "x"}, {"none": true} or {"tuple": [...]}' });
  };
  if ('int' in o) {
    const n = num(o.int);
    if (!Number.isSafeInteger(n)) bad(`{"int": ...} needs an integer, got ${JSON.stringify(o.int)}`);
    return { k: 'num', value: n, isInt: true };
  }
  if ('float' in o) {
    const n = num(o.float);
    if (Number.isNaN(n)) bad(`{"float": ...} needs a number, got ${JSON.stringify(o.float)}`);
    return { k: 'num', value: n, isInt: false };
  }
  if ('bool' in o) return typeof o.bool === 'boolean' ? { k: 'bool', value: o.bool } : bad('{"bool": ...} needs true or false');
  if ('str' in o) return typeof o.str === 'string' ? { k: 'str', value: o.str } : bad('{"str": ...} needs a string');
  if ('none' in o) return { k: 'none' };
  if ('tuple' in o) return Array.isArray(o.tuple) ? { k: 'tuple', items: o.tuple.map((x) => toValue(key, x)) } : bad('{"tuple": ...} needs a list');
  if ('enum' in o && typeof o.enum === 'string' && typeof o.name === 'string') return { k: 'enumMember', enum: o.enum, name: o.name, value: toValue(key, o.value) };
  return undefined;
}

/** `--define k=v` values: JSON numbers/booleans, or Python's True/False. */
export function parseDefine(text: string): [string, number | boolean] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw defineNotNameValue(text);
  const k = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1).trim();
  if (raw === 'True' || raw === 'true') return [k, true];
  if (raw === 'False' || raw === 'false') return [k, false];
  const n = Number(raw);
  if (raw === '' || Number.isNaN(n)) throw defineNotNumber(k, raw);
  return [k, n];
}
