import { loadInputs, readCaseSpec, withinTolerance, type CaseSpec } from './caseFolder.js';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildRequest } from '../core/Compiler.js';
import type { CallSpec } from '../core/runtime/callArgs.js';
import type { NDArray } from '../core/runtime/ndarray.js';
import { parseExternals } from '../core/frontend/externalsJson.js';

/**
 * The conformance kit (a copy of the shared kit, in test/conformance) as the tests and the GPU
 * benchmark read it: case specs, inputs, the build request and call of each case, and
 * the comparison with GT4Py's outputs.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
/** The in-repository copy of the kit (test/conformance); conformanceDrift.test checks it against the shared kit beside the checkout. */
export const KIT_DIR = path.resolve(here, '../../test/conformance');
export const CASES_DIR = path.join(KIT_DIR, 'cases');
/** The tools that drive `orch run` from outside (copied from the shared kit's tools). */
export const TOOLS_DIR = path.resolve(here, '../../test/tools');
export const FIXTURES_DIR = path.resolve(here, '../../fixtures');

export type { CaseSpec };

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
      return { name, dir, spec: readCaseSpec(dir) };
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
  return loadInputs(c.dir);
}

/** The call of a case, without its fields. */
export function caseCall(c: ConformanceCase): Omit<CallSpec, 'fields'> {
  return { scalars: c.spec.scalars ?? {}, origin: c.spec.origin, domain: c.spec.domain };
}

/** null when every compared output matches GT4Py's within the case's tolerance, else the first difference. */
export function gt4pyMismatch(c: ConformanceCase, got: Record<string, NDArray>): string | null {
  return withinTolerance(c.spec, c.dir, got);
}
