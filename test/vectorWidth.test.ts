import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { parseExternals } from '../core/frontend/externalsJson.js';
import type { ResolvedConfig } from '../core/config/types.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';
import { generateCpp } from '../plugins/codegen/generateCpp.js';
import { EntryRunner } from './entryRunner.js';

/**
 * codegen.vectorWidth (plugins/codegen/vectorWidth.ts): the generated file asks g++ to prefer
 * vectors of that width where it compiles for AVX-512, and nothing else changes: results
 * stay the interpreter's, bit for bit, built with -march=native (AVX-512 where the machine has it).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const t = suite('vector width');

async function source(codegen: Partial<ResolvedConfig['codegen']>): Promise<string> {
  const config = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-vw-')) });
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [path.join(fixtures, 'ppm_advection.py')], entry: 'ppm_advection', externals: parseExternals('{}'), defines: {}, mode: 'python' });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  return generateCpp(r.entries[0].program!, { ...config.codegen, ...codegen }).source;
}

const PRAGMA = '#pragma GCC target("prefer-vector-width=256")';

t('vectorWidth 256: the pragma, guarded for x86 with AVX-512, after the includes; none by default', async () => {
  const src = await source({ vectorWidth: 256 });
  assert.ok(src.includes(`#if defined(__x86_64__) && defined(__AVX512F__)\n${PRAGMA}\n#endif`));
  assert.ok(src.indexOf(PRAGMA) > src.indexOf('#include "orch_stage.h"'));
  assert.not.ok((await source({})).includes('prefer-vector-width'));
  assert.not.ok((await source({ vectorWidth: false })).includes('prefer-vector-width'));
});

t('ppm_advection with 256-bit vectors and -march=native, fused with regions or not: bitwise equal to the interpreter', async () => {
  const file = path.join(fixtures, 'ppm_advection.py');
  for (const fuseRegions of [false, true]) {
    const runner = await EntryRunner.create({ codegen: { vectorWidth: 256, fuseRegions, loopOrder: 'JIK' }, extraFlags: ['-march=native', '-ffp-contract=off'] });
    const iface = (await runner.build(file, 'ppm_advection', 'python')).iface!;
    for (const shape of [[18, 18, 79], [13, 40, 9]]) await runner.runAgreeing(file, 'ppm_advection', { fields: syntheticInputs(iface, shape, {}), scalars: { dt: 0.1 } }, '{}', 0);
  }
});

t.run();
