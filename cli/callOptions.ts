import { DTYPE_BYTES } from '../core/ir/dtypes.js';
import os from 'node:os';
import { fail } from '../core/diagnostics.js';
import { notIntegers } from '../core/diagnostics/codes.js';
import type { CallSpec, EntryInterface } from '../core/runtime/callArgs.js';
import type { NDArray } from '../core/runtime/ndarray.js';

/** The call options of `orch run` (--shape, --domain, --origin, --scalars, --repeat), read and checked. */

const BYTES: Record<string, number> = DTYPE_BYTES;

export function parseIntList(text: string, what: 'shape' | 'domain' | 'origin'): number[] {
  const parts = text.split(',').map((x) => x.trim());
  const nums = parts.map(Number);
  if (parts.some((p) => p === '') || nums.some((n) => !Number.isInteger(n))) throw notIntegers(what, text);
  return nums;
}

/** --shape: three sizes, none negative (a zero size is an empty domain, as in GT4Py). */
export function parseShape(text: string): number[] {
  const shape = parseIntList(text, 'shape');
  if (shape.length !== 3) fail('E_USAGE_SHAPE', `--shape expects three sizes NX,NY,NZ, got ${shape.length} ('${text}')`, { hint: 'write --shape 8,8,4' });
  const bad = shape.findIndex((n) => n < 0);
  if (bad >= 0) fail('E_USAGE_SHAPE', `--shape sizes must not be negative, got ${shape[bad]} along ${'IJK'[bad]} ('${text}')`, { hint: 'write --shape 8,8,4' });
  return shape;
}

/**
 * What the fields --shape fills would take, refused before allocating when one does not fit
 * a typed array or all together exceed this machine's memory.
 */
export function checkShapeFits(iface: EntryInterface, shape: number[], given: Record<string, NDArray>, text: string): void {
  let bytes = 0;
  let fields = 0;
  let largest = 0;
  for (const p of iface.params) {
    if (p.kind !== 'field' || given[p.name]) continue;
    const points = [...(p.axes ?? 'IJK')].reduce((n, a) => n * (shape['IJK'.indexOf(a)] ?? 1), 1);
    bytes += points * BYTES[p.dtype];
    largest = Math.max(largest, points);
    fields++;
  }
  const memory = os.totalmem();
  // V8 caps one typed array's length at 2**32 elements
  if (bytes > memory || largest > 2 ** 32) {
    fail('E_USAGE_SHAPE', `--shape ${text} asks for ${formatBytes(bytes)} (${bytes} bytes) for ${fields} field(s), but this machine has ${formatBytes(memory)} of memory${largest > 2 ** 32 ? ' and one array holds at most 2^32 elements' : ''}`, {
      hint: 'give a smaller --shape',
    });
  }
}

function formatBytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${n} bytes` : `${n < 1e4 ? n.toFixed(1) : n.toExponential(2)} ${units[u]}`;
}

export function parseOrigin(text: string): NonNullable<CallSpec['origin']> {
  const t = text.trim();
  if (t.startsWith('{')) {
    let o: unknown;
    try {
      o = JSON.parse(t);
    } catch (e) {
      fail('E_USAGE_ORIGIN', `--origin is not valid JSON: ${(e as Error).message}`, { hint: `write --origin '{"_all_": [1, 1, 0], "ps": [1, 1]}'` });
    }
    if (!o || typeof o !== 'object' || Array.isArray(o) || Object.values(o).some((v) => !Array.isArray(v) || v.some((x) => !Number.isInteger(x)))) {
      fail('E_USAGE_ORIGIN', '--origin JSON must map field names (or _all_) to lists of integers', { hint: `write --origin '{"_all_": [1, 1, 0]}'` });
    }
    return o as Record<string, number[]>;
  }
  return parseIntList(t, 'origin');
}

export function parseScalars(text: string | undefined): Record<string, number | boolean> {
  if (!text) return {};
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (e) {
    fail('E_USAGE_SCALARS', `--scalars is not valid JSON: ${(e as Error).message}`, { hint: `write --scalars '{"dt": 30.0}'` });
  }
  if (!o || typeof o !== 'object' || Array.isArray(o) || Object.values(o).some((v) => typeof v !== 'number' && typeof v !== 'boolean')) {
    fail('E_USAGE_SCALARS', '--scalars must be a JSON object of numbers and booleans', { hint: `write --scalars '{"dt": 30.0, "on": true}'` });
  }
  return o as Record<string, number | boolean>;
}

/** --repeat: a count of further calls (read as text: yargs turns a word into NaN). */
export function parseRepeat(text: string | undefined): number {
  const t = (text ?? '0').trim();
  if (/^\d+$/.test(t) && Number.isSafeInteger(Number(t))) return Number(t);
  return fail('E_USAGE_REPEAT', `--repeat expects a count of further calls (0 or more), got '${t}'`, { hint: 'write --repeat 10' });
}
