import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildRequest } from '../core/Compiler.js';
import type { CallSpec } from '../core/runtime/callArgs.js';
import type { NDArray } from '../core/runtime/ndarray.js';
import { readNpy } from '../core/runtime/npy.js';
import { parseExternals } from '../plugins/parse/externalsJson.js';

/**
 * The shared conformance kit (../shared/conformance) as the GPU tests and the GPU
 * benchmark read it: case specs, inputs, the build request and call of each case, and
 * the comparison with GT4Py's outputs.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
export const CASES_DIR = path.resolve(here, '../../../shared/conformance/cases');
export const FIXTURES_DIR = path.resolve(here, '../../fixtures');

export interface CaseSpec {
  kind: string;
  entry: string;
  tier: number;
  domain?: number[];
  origin?: number[] | Record<string, number[]>;
  externals?: Record<string, unknown>;
  scalars?: Record<string, number | boolean>;
  compiletime?: Record<string, number | boolean>;
  compare: string[];
  rtol?: number;
  atol?: number;
}

export interface ConformanceCase {
  name: string;
  dir: string;
  spec: CaseSpec;
}

export function conformanceCases(): ConformanceCase[] {
  if (!existsSync(CASES_DIR)) return [];
  return readdirSync(CASES_DIR)
    .filter((c) => existsSync(path.join(CASES_DIR, c, 'case.json')))
    .sort()
    .map((name) => {
      const dir = path.join(CASES_DIR, name);
      return { name, dir, spec: JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8')) as CaseSpec };
    });
}

/** Every .py under fixtures/ (example programs, pass fixtures, backend fixtures). */
export function fixtureModules(dir = FIXTURES_DIR): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const f = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...fixtureModules(f));
    else if (entry.name.endsWith('.py')) out.push(f);
  }
  return out.sort();
}

export function caseRequest(c: ConformanceCase): Omit<BuildRequest, 'mode'> {
  return {
    modules: [path.join(c.dir, 'module.py')],
    entry: c.spec.entry,
    externals: parseExternals(JSON.stringify(c.spec.externals ?? {})),
    defines: c.spec.compiletime ?? {},
  };
}

export function caseInputs(c: ConformanceCase): Record<string, NDArray> {
  const out: Record<string, NDArray> = {};
  for (const f of readdirSync(path.join(c.dir, 'in'))) out[f.replace(/\.npy$/, '')] = readNpy(path.join(c.dir, 'in', f));
  return out;
}

/** The call of a case, without its fields. */
export function caseCall(c: ConformanceCase): Omit<CallSpec, 'fields'> {
  return { scalars: c.spec.scalars ?? {}, origin: c.spec.origin, domain: c.spec.domain };
}

/** null when every compared output matches GT4Py's within the case's tolerance, else the first difference. */
export function gt4pyMismatch(c: ConformanceCase, got: Record<string, NDArray>): string | null {
  const rtol = c.spec.rtol ?? 1e-12;
  const atol = c.spec.atol ?? 1e-14;
  for (const name of c.spec.compare) {
    const want = readNpy(path.join(c.dir, 'out', `${name}.npy`));
    const a = got[name];
    if (!a) return `no output ${name}`;
    if (a.shape.join() !== want.shape.join()) return `${name}: shape ${a.shape} != ${want.shape}`;
    const exact = want.dtype === 'bool' || want.dtype.startsWith('int');
    for (let n = 0; n < want.data.length; n++) {
      const w = Number(want.data[n]);
      const g = Number(a.data[n]);
      if (Number.isNaN(w) && Number.isNaN(g)) continue;
      if (exact ? w !== g : !(Math.abs(g - w) <= atol + rtol * Math.abs(w))) return `${name}: element ${n} is ${g}, expected ${w}`;
    }
  }
  return null;
}
