import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import { CASES_DIR } from './conformanceKit.js';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { PASS_NAMES, type PassName, type ResolvedConfig } from '../core/config/types.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import { buildEntryArgs } from '../core/runtime/callArgs.js';
import { cloneArray, type NDArray } from '../core/runtime/ndarray.js';
import { readNpy } from '../core/runtime/npy.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';
import { parseExternals } from '../core/frontend/externalsJson.js';

/**
 * Every optimizing pass preserves results: on every conformance case, language fixture and bench fixture the
 * interpreter gives bitwise the same outputs with all passes off, with each pass alone,
 * with all of them on (the default), and with every schedule orch tune may choose (its
 * compiled candidates are also checked bitwise against the interpreter as it tunes).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const casesDir = CASES_DIR;
const fixturesDir = path.resolve(here, '../../fixtures/bench');
const base = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-eq-')) });

function withPasses(on: PassName[]): ResolvedConfig {
  return { ...base, passes: Object.fromEntries(PASS_NAMES.map((n) => [n, on.includes(n)])) as Record<PassName, boolean> };
}

/** Small odd tiles, cut along K too: many tiles per case, so over-computed halos and edge tiles are exercised. */
function smallTiles(c: ResolvedConfig): ResolvedConfig {
  return { ...c, codegen: { ...c.codegen, tile: [3, 2, 4] } };
}

/** Every schedule `orch tune` may choose (the backend's knobs, one value at a time), all passes on. */
function tunerCandidates(): [string, ResolvedConfig][] {
  return (base.backend.scheduleKnobs ?? []).flatMap((k) =>
    k
      .values({ base: base.codegen, domain: [16, 15, 12] })
      .filter((v) => JSON.stringify(v) !== JSON.stringify(base.codegen[k.option]))
      .map((v): [string, ResolvedConfig] => [`orch tune's ${k.option}=${JSON.stringify(v)}`, { ...withPasses(PASS_NAMES), codegen: { ...base.codegen, [k.option]: v } }]),
  );
}

const CONFIGS: [string, ResolvedConfig][] = [
  ['none', withPasses([])],
  ...PASS_NAMES.map((n): [string, ResolvedConfig] => [n, withPasses([n])]),
  ['tiling, 3x2x4 tiles', smallTiles(withPasses(['tiling']))],
  ['all', withPasses(PASS_NAMES)],
  ['all, 3x2x4 tiles', smallTiles(withPasses(PASS_NAMES))],
  ...tunerCandidates(),
];

interface Target {
  name: string;
  file: string;
  entry: string;
  externals: Record<string, unknown>;
  defines: Record<string, number | boolean>;
  inputs: () => { fields: Record<string, NDArray>; scalars: Record<string, number | boolean>; origin?: number[] | Record<string, number[]>; domain?: number[] };
}

/** A case folder (case.json, module.py, in/*.npy) as a target: the conformance kit's and orch's language fixtures. */
function caseTarget(name: string, dir: string): Target | undefined {
  if (!existsSync(path.join(dir, 'case.json'))) return undefined;
  const spec = JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8'));
  return {
    name,
    file: path.join(dir, 'module.py'),
    entry: spec.entry,
    externals: spec.externals ?? {},
    defines: spec.compiletime ?? {},
    inputs: () => ({
      fields: Object.fromEntries(readdirSync(path.join(dir, 'in')).map((f) => [f.replace(/\.npy$/, ''), readNpy(path.join(dir, 'in', f))])),
      scalars: spec.scalars ?? {},
      origin: spec.origin,
      domain: spec.domain,
    }),
  };
}

const targets: Target[] = [];
for (const c of existsSync(casesDir) ? readdirSync(casesDir).sort() : []) {
  const t = caseTarget(c, path.join(casesDir, c));
  if (t) targets.push(t);
}
// orch's language fixtures (case folders, like the conformance kit's)
const languageDir = path.resolve(here, '../../fixtures/language');
for (const c of readdirSync(languageDir).sort()) {
  const t = caseTarget(`language ${c}`, path.join(languageDir, c));
  if (t) targets.push(t);
}
const FIXTURE_SCALARS: Record<string, Record<string, number>> = { pointwise_chain: { rate: 0.5 }, hdiff: { dt: 0.01 }, vertical_solver: { dt: 0.1 }, ppm_advection: { dt: 0.1 }, deln_damping: { damp: 0.05 }, dycore: { dt: 0.1 } };
for (const [name, scalars] of Object.entries(FIXTURE_SCALARS)) {
  targets.push({ name: `fixture ${name}`, file: path.join(fixturesDir, `${name}.py`), entry: name, externals: {}, defines: {}, inputs: () => ({ fields: {}, scalars }) });
}

const eq = suite('pass equivalence');

for (const t of targets) {
  eq(`${t.name}: identical results with passes off, each alone, and all on`, async () => {
    let reference: Record<string, NDArray> | undefined;
    let referenceFields: Record<string, NDArray> | undefined;
    for (const [label, config] of CONFIGS) {
      const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
      const r = await compiler.build({ modules: [t.file], entry: t.entry, externals: parseExternals(JSON.stringify(t.externals)), defines: t.defines, mode: 'python' });
      if (r.errors.length) {
        // a case the frontend rejects is rejected the same way in every configuration
        assert.ok(label === 'none' || reference === undefined, `${label}: ${formatDiagnostic(r.errors[0])}`);
        return;
      }
      const e = r.entries[0];
      const input = t.inputs();
      if (!Object.keys(input.fields).length) {
        referenceFields ??= syntheticInputs(e.iface!, [16, 15, 12], {});
        input.fields = referenceFields;
      }
      const fields: Record<string, NDArray> = {};
      for (const [k, v] of Object.entries(input.fields)) fields[k] = cloneArray(v);
      new Interpreter(e.program!).run(buildEntryArgs(e.iface!, { ...input, fields }));
      if (!reference) {
        reference = fields;
        continue;
      }
      for (const [k, v] of Object.entries(reference)) {
        const got = fields[k];
        for (let n = 0; n < v.data.length; n++) {
          const a = Number(v.data[n]);
          const b = Number(got.data[n]);
          if (!(a === b || (Number.isNaN(a) && Number.isNaN(b)))) assert.unreachable(`${label}: ${k}[${n}] is ${b}, ${a} with passes off`);
        }
      }
    }
  });
}

eq.run();
