import type { NDArray } from './ndarray.js';

export interface Comparison {
  fields: number;
  points: number;
  maxAbs: number;
  maxRel: number;
  /** field with the largest relative difference */
  worst?: string;
}

/** Elementwise differences between two sets of same-shaped fields (NaN equals NaN). */
export function compareArrays(expected: Record<string, NDArray>, actual: Record<string, NDArray>): Comparison {
  const out: Comparison = { fields: 0, points: 0, maxAbs: 0, maxRel: 0 };
  for (const [name, e] of Object.entries(expected)) {
    const a = actual[name];
    if (!a || a.data.length !== e.data.length) {
      out.maxAbs = Infinity;
      out.maxRel = Infinity;
      out.worst = name;
      continue;
    }
    out.fields++;
    for (let n = 0; n < e.data.length; n++) {
      const x = Number(e.data[n]);
      const y = Number(a.data[n]);
      out.points++;
      if (x === y || (Number.isNaN(x) && Number.isNaN(y))) continue;
      const abs = Math.abs(x - y);
      const rel = abs / Math.max(Math.abs(x), Number.MIN_VALUE);
      if (abs > out.maxAbs || Number.isNaN(abs)) out.maxAbs = Number.isNaN(abs) ? Infinity : abs;
      if (rel > out.maxRel || Number.isNaN(rel)) {
        out.maxRel = Number.isNaN(rel) ? Infinity : rel;
        out.worst = name;
      }
    }
  }
  return out;
}
