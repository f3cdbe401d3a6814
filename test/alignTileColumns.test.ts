import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
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
import { cpuScheduleKnobs } from '../plugins/codegen/cpuScheduleKnobs.js';
import { readCaseSpec, loadInputs } from './caseFolder.js';
import { CASES_DIR } from './conformanceKit.js';
import { EntryRunner } from './entryRunner.js';

/**
 * Issue 18 items 2 and 5: codegen.alignTileColumns starts each K column of a tile's own
 * arrays on a 64-byte line (plugins/codegen/tileScratch.ts). Only the layout of scratch
 * memory changes, so every number stays the interpreter's, bit for bit: on the bench
 * fixtures with temporaries and versions (K-cut tiles of fewer levels than a line, tall
 * tiles, odd K extents), and on every conformance and language case with a zero-filled
 * tile-local array (the fill covers the padded columns).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const t = suite('align tile columns');

async function source(file: string, entry: string, codegen: Partial<ResolvedConfig['codegen']>): Promise<string> {
  const config = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-aligncols-')) });
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [file], entry, externals: parseExternals('{}'), defines: {}, mode: 'python' });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  return generateCpp(r.entries[0].program!, { ...config.codegen, ...codegen }).source;
}

const PADDED = 'const int64_t l_tile_ppm_flux_x_0_al_nkp = (l_tile_ppm_flux_x_0_al_nk + static_cast<int64_t>(64 / sizeof(double)) - 1) / static_cast<int64_t>(64 / sizeof(double)) * static_cast<int64_t>(64 / sizeof(double));';

t('ppm_advection: its temporaries K columns padded to whole lines with alignTileColumns (strides and bytes), packed without it', async () => {
  const file = path.join(fixtures, 'ppm_advection.py');
  const src = await source(file, 'ppm_advection', { alignTileColumns: true });
  assert.ok(src.includes(PADDED), 'the padded extent');
  assert.ok(src.includes('s1_ppm_flux_x_0_al = l_tile_ppm_flux_x_0_al_nkp,'), 'a column stride of whole lines');
  assert.ok(src.includes('l_tile_ppm_flux_x_0_al_nj * l_tile_ppm_flux_x_0_al_nkp) * sizeof(double) + 63) / 64 * 64;'), 'the bytes of padded columns');
  const plain = await source(file, 'ppm_advection', {});
  assert.not.ok(plain.includes('_nkp'), 'the presets leave it off');
  assert.ok(plain.includes('s1_ppm_flux_x_0_al = l_tile_ppm_flux_x_0_al_nk,'));
});

t('the Thomas solver: its tiles are laid out [K][I][J] (rows along J), so the option changes nothing', async () => {
  const file = path.join(fixtures, 'vertical_solver.py');
  assert.is(await source(file, 'vertical_solver', { alignTileColumns: true }), await source(file, 'vertical_solver', {}));
});

t('orch tune tries it', () => {
  const knob = cpuScheduleKnobs.find((k) => k.option === 'alignTileColumns');
  assert.ok(knob, 'a knob');
  assert.equal(knob!.values({ base: { loopOrder: 'IJK', openmp: true, lineDirectives: true }, domain: [12, 12, 79] }), [true, false]);
});

const BENCH: [string, Record<string, number>][] = [
  ['ppm_advection', { dt: 0.1 }],
  ['hdiff', { dt: 0.01 }],
  ['deln_damping', { damp: 0.05 }],
  ['dycore', { dt: 0.1 }],
];
type Tile = [number, number] | [number, number, number];
/** K-cut tiles of 3 levels (padded to 8), tall ones, and JIK (rows rolled along J). */
const SCHEDULES: [string, Tile][] = [['IJK', [3, 2, 3]], ['IJK', [32, 32]], ['JIK', [5, 7]]];

for (const [entry, scalars] of BENCH) {
  t(`${entry}: compiled with alignTileColumns bitwise equal to the interpreter (${SCHEDULES.map(([o, x]) => `${o} ${x.join('x')}`).join(', ')} tiles, -march=native)`, async () => {
    const file = path.join(fixtures, `${entry}.py`);
    for (const [loopOrder, tile] of SCHEDULES) {
      const runner = await EntryRunner.create({ codegen: { alignTileColumns: true, loopOrder, tile }, extraFlags: ['-march=native', '-ffp-contract=off'] });
      const iface = (await runner.build(file, entry, 'python')).iface!;
      for (const shape of [[19, 45, 7], [12, 13, 9]]) await runner.runAgreeing(file, entry, { fields: syntheticInputs(iface, shape, {}), scalars }, '{}', 0);
    }
  });
}

const caseDirs = [CASES_DIR, path.resolve(here, '../../fixtures/language')].flatMap((base) =>
  existsSync(base) ? readdirSync(base).sort().map((c) => path.join(base, c)).filter((d) => existsSync(path.join(d, 'case.json'))) : [],
);
t('every conformance and language case with a zero-filled tile-local array: compiled with padded columns, bitwise equal to the interpreter', async () => {
  const codegen = { alignTileColumns: true, tile: [3, 2, 3] as Tile };
  const runner = await EntryRunner.create({ codegen });
  const filled: string[] = [];
  for (const dir of caseDirs) {
    const spec = readCaseSpec(dir);
    const file = path.join(dir, 'module.py');
    const externals = JSON.stringify(spec.externals ?? {});
    const defines = spec.compiletime ?? {};
    const py = await runner.build(file, spec.entry, 'python', externals, defines);
    assert.is(py.errors.length, 0, `${dir}: ${py.errors.map((d) => formatDiagnostic(d)).join('\n')}`);
    const src = generateCpp(py.program!, { loopOrder: 'IJK', openmp: true, lineDirectives: false, ...codegen }).source;
    if (!/_nkp\) \* sizeof\(\w+\)\);/.test(src)) continue;
    filled.push(path.basename(dir));
    await runner.runAgreeing(file, spec.entry, { fields: loadInputs(dir), scalars: spec.scalars ?? {}, origin: spec.origin, domain: spec.domain }, externals, 0, defines);
  }
  assert.ok(filled.length >= 1, 'no case zero-fills a padded tile-local array');
});

t.run();
