import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadInputs, readCaseSpec, withinTolerance } from './caseFolder.js';
import { EntryRunner } from './entryRunner.js';

/**
 * orch's own gtscript fixtures (fixtures/language/<case>), written like PyFV3 code: each
 * is a case folder in the conformance kit's layout whose expected outputs come from an
 * independent numpy implementation beside it (`reference.py`, which also writes the
 * inputs). Each runs interpreted and compiled; both must match the reference and each other.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../fixtures/language');
const runner = await EntryRunner.create();
const language = suite('language fixtures');

for (const name of readdirSync(root).sort()) {
  const dir = path.join(root, name);
  if (!existsSync(path.join(dir, 'case.json'))) continue;
  const spec = readCaseSpec(dir);
  language(`${name} interpreted and compiled, against its numpy reference`, async () => {
    const fields = await runner.runAgreeing(path.join(dir, 'module.py'), spec.entry, {
      fields: loadInputs(dir),
      scalars: spec.scalars ?? {},
      origin: spec.origin,
      domain: spec.domain,
    }, JSON.stringify(spec.externals ?? {}));
    const err = withinTolerance(spec, dir, fields);
    assert.is(err, null, `against the numpy reference: ${err}`);
  });
}

language.run();
