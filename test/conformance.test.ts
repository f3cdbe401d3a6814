import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import { CASES_DIR } from './conformanceKit.js';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic, OrchError } from '../core/diagnostics.js';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import { buildEntryArgs, type EntryArgs } from '../core/runtime/callArgs.js';
import { compareArrays } from '../core/runtime/compareArrays.js';
import { cloneArray, type NDArray } from '../core/runtime/ndarray.js';
import { NativeLibrary } from '../core/runtime/NativeLibrary.js';
import { parseExternals } from '../core/frontend/externalsJson.js';
import { loadInputs, readCaseSpec, withinTolerance } from './caseFolder.js';

/**
 * Every case of the conformance kit (test/conformance, a copy of the shared kit), interpreted and compiled, compared with the
 * outputs GT4Py computed (within the case's tolerance) and with each other.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const casesDir = CASES_DIR;

/**
 * Cases that need features later issues build, each failing today with a located
 * diagnostic of the given code. The test checks exactly that, so a case that starts
 * passing (or fails differently) is noticed and moved out of this list.
 */
const KNOWN_GAPS: Record<string, string> = {
};

const cases = existsSync(casesDir) ? readdirSync(casesDir).filter((c) => existsSync(path.join(casesDir, c, 'case.json'))).sort() : [];
const root = mkdtempSync(path.join(os.tmpdir(), 'orch-conformance-'));
const config = await resolveConfig({ configFile: null, cwd: root });
config.cacheRoot = root;
// small odd tiles, cut along K too, so compiled tiled launches run many tiles with edges on these small domains
config.codegen = { ...config.codegen, tile: [3, 2, 4] };

const conformance = suite('conformance');

conformance('the conformance kit is present', () => {
  assert.ok(cases.length >= 45, `expected the shared conformance cases in ${casesDir}`);
});

for (const name of cases) {
  const dir = path.join(casesDir, name);
  const spec = readCaseSpec(dir);
  conformance(`${name} (tier ${spec.tier}) interpreted and compiled`, async () => {
    const compiler = new Compiler({ ...config, verifyIR: true }, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
    const request = {
      modules: [path.join(dir, 'module.py')],
      entry: spec.entry,
      externals: parseExternals(JSON.stringify(spec.externals ?? {})),
      defines: spec.compiletime ?? {},
    };
    const interpreted = await compiler.build({ ...request, mode: 'python' });
    const gap = KNOWN_GAPS[name];
    if (gap === 'MISMATCH') {
      // a known wrong result: the interpreter must still disagree with GT4Py, so a fix is noticed
      assert.is(interpreted.errors.length, 0, interpreted.errors.map((d) => formatDiagnostic(d)).join('\n'));
      const fields: Record<string, NDArray> = {};
      for (const [k, v] of Object.entries(loadInputs(dir))) fields[k] = cloneArray(v);
      new Interpreter(interpreted.entries[0].program!).run(buildEntryArgs(interpreted.entries[0].iface!, { scalars: spec.scalars ?? {}, origin: spec.origin, domain: spec.domain, fields }));
      assert.ok(withinTolerance(spec, dir, fields) !== null, `${name} is listed as a known wrong result but now matches GT4Py: remove it from KNOWN_GAPS`);
      return;
    }
    if (gap) {
      const d = interpreted.errors[0];
      assert.ok(d, `${name} is listed as a known gap but now builds: remove it from KNOWN_GAPS`);
      assert.is(d.code, gap, formatDiagnostic(d));
      assert.ok(d.loc && d.loc.line > 0 && d.frame, 'the gap is reported at a source location');
      return;
    }
    assert.is(interpreted.errors.length, 0, interpreted.errors.map((d) => formatDiagnostic(d)).join('\n'));
    const entry = interpreted.entries[0];
    const inputs = loadInputs(dir);
    const spec0 = { scalars: spec.scalars ?? {}, origin: spec.origin, domain: spec.domain };
    const pyFields: Record<string, NDArray> = {};
    for (const [k, v] of Object.entries(inputs)) pyFields[k] = cloneArray(v);
    const pyArgs: EntryArgs = buildEntryArgs(entry.iface!, { ...spec0, fields: pyFields });
    new Interpreter(entry.program!).run(pyArgs);
    const pyErr = withinTolerance(spec, dir, pyFields);
    assert.is(pyErr, null, `interpreter vs GT4Py: ${pyErr}`);

    const built = await compiler.build({ ...request, mode: 'build' });
    assert.is(built.errors.length, 0, built.errors.map((d) => formatDiagnostic(d, { verbose: true })).join('\n'));
    const b = built.entries[0];
    const cFields: Record<string, NDArray> = {};
    for (const [k, v] of Object.entries(inputs)) cFields[k] = cloneArray(v);
    const lib = NativeLibrary.open(b.library!, b.symbol!);
    try {
      lib.setCallbacks(Object.fromEntries((b.iface!.callbacks ?? []).map((cb) => [cb.name, Interpreter.hostFunction(cb)])));
      lib.run(buildEntryArgs(b.iface!, { ...spec0, fields: cFields }));
    } catch (e) {
      if (e instanceof OrchError) assert.unreachable(formatDiagnostic(e.diagnostic));
      throw e;
    } finally {
      lib.close();
    }
    const cErr = withinTolerance(spec, dir, cFields);
    assert.is(cErr, null, `compiled vs GT4Py: ${cErr}`);
    const cmp = compareArrays(pyFields, cFields);
    assert.ok(cmp.maxRel <= 1e-12 || cmp.maxAbs <= 1e-12, `compiled vs interpreter: max rel diff ${cmp.maxRel} in ${cmp.worst}`);
  });
}

conformance.run();
