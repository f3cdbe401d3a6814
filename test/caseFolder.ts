import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { NDArray } from '../core/runtime/ndarray.js';
import { readNpy } from '../core/runtime/npy.js';

/**
 * A case folder in the conformance kit's layout (test/conformance/README.md):
 * `module.py`, `case.json`, `in/<field>.npy` and `out/<field>.npy`. The shared kit and
 * orch's own fixtures (fixtures/language) are read and checked the same way.
 */
export interface CaseSpec {
  kind: string;
  entry: string;
  tier?: number;
  domain?: number[];
  origin?: number[] | Record<string, number[]>;
  externals?: Record<string, unknown>;
  scalars?: Record<string, number | boolean>;
  compiletime?: Record<string, number | boolean>;
  compare: string[];
  rtol?: number;
  atol?: number;
}

export function readCaseSpec(dir: string): CaseSpec {
  return JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8')) as CaseSpec;
}

export function loadInputs(dir: string): Record<string, NDArray> {
  const out: Record<string, NDArray> = {};
  for (const f of readdirSync(path.join(dir, 'in'))) out[f.replace(/\.npy$/, '')] = readNpy(path.join(dir, 'in', f));
  return out;
}

/** Checks every `compare` field against `out/` (floats within tolerance, ints and bools exactly); null when all match. */
export function withinTolerance(spec: CaseSpec, dir: string, got: Record<string, NDArray>): string | null {
  const rtol = spec.rtol ?? 1e-12;
  const atol = spec.atol ?? 1e-14;
  for (const name of spec.compare) {
    const want = readNpy(path.join(dir, 'out', `${name}.npy`));
    const a = got[name];
    if (!a) return `no output ${name}`;
    if (a.shape.join() !== want.shape.join()) return `${name}: shape ${a.shape} != ${want.shape}`;
    for (let n = 0; n < want.data.length; n++) {
      const w = Number(want.data[n]);
      const g = Number(a.data[n]);
      if (Number.isNaN(w) && Number.isNaN(g)) continue;
      const exact = want.dtype === 'bool' || want.dtype.startsWith('int');
      if (exact ? w !== g : !(Math.abs(g - w) <= atol + rtol * Math.abs(w))) return `${name}: element ${n} is ${g}, expected ${w}`;
    }
  }
  return null;
}
