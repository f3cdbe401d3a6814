import { DTYPE_BYTES } from '../core/ir/dtypes.js';
import os from 'node:os';
import { notIntegers } from '../core/diagnostics/codes.js';
import type { CallSpec, EntryInterface } from '../core/runtime/callArgs.js';
import type { NDArray } from '../core/runtime/ndarray.js';
import { originJsonNotMap, originNotJson, repeatNotCount, scalarsNotJson, scalarsNotObject, shapeNegative, shapeNotThree, shapeTooLarge } from '../core/diagnostics/usageErrors.js';

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
  if (shape.length !== 3) throw shapeNotThree(shape.length, text);
  const bad = shape.findIndex((n) => n < 0);
  if (bad >= 0) throw shapeNegative(shape[bad], 'IJK'[bad], text);
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
    throw shapeTooLarge(text, formatBytes(bytes), bytes, fields, formatBytes(memory), largest);
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
      throw originNotJson((e as Error).message);
    }
    if (!o || typeof o !== 'object' || Array.isArray(o) || Object.values(o).some((v) => !Array.isArray(v) || v.some((x) => !Number.isInteger(x)))) {
      throw originJsonNotMap();
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
    throw scalarsNotJson((e as Error).message);
  }
  if (!o || typeof o !== 'object' || Array.isArray(o) || Object.values(o).some((v) => typeof v !== 'number' && typeof v !== 'boolean')) {
    throw scalarsNotObject();
  }
  return o as Record<string, number | boolean>;
}

/** --repeat: a count of further calls (read as text: yargs turns a word into NaN). */
export function parseRepeat(text: string | undefined): number {
  const t = (text ?? '0').trim();
  if (/^\d+$/.test(t) && Number.isSafeInteger(Number(t))) return Number(t);
  throw repeatNotCount(t);
}
