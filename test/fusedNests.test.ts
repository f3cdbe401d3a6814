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
import { readCaseSpec, loadInputs } from './caseFolder.js';
import { CASES_DIR } from './conformanceKit.js';
import { EntryRunner } from './entryRunner.js';

/**
 * Issue 18 item 3: codegen.fuseNests runs the nests of a tile's PARALLEL loop fused column by
 * column, each delayed by the offsets it reads the others at (core/ir/nestFusion.ts), and
 * keeps only the live rows of the temporaries only it touches (fusedNests.ts). Every number
 * stays the interpreter's, bit for bit: on the bench fixtures with remainder tiles, K-cut
 * tiles and tall tiles, and on every conformance and language case the schedule changes.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const t = suite('fused nests');

async function source(file: string, entry: string, codegen: Partial<ResolvedConfig['codegen']>, spec?: { externals?: unknown; compiletime?: Record<string, number | boolean> }): Promise<string> {
  const config = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-fused-')) });
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [file], entry, externals: parseExternals(JSON.stringify(spec?.externals ?? {})), defines: spec?.compiletime ?? {}, mode: 'python' });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  return generateCpp(r.entries[0].program!, { ...config.codegen, ...codegen }).source;
}

const FUSED_LOOP = 'for (int64_t c = clo; c < chi; ++c) {';

t('hdiff: fused, flx and out a row behind lap, fly a column behind; lap, flx and fly keep 2 rows each; on in the cpu preset', async () => {
  const file = path.join(fixtures, 'hdiff.py');
  const src = await source(file, 'hdiff', { fuseNests: true });
  assert.ok(src.includes(FUSED_LOOP));
  for (const d of ['const int64_t i = r - 0, j = c - 0;', 'const int64_t i = r - 1, j = c - 0;', 'const int64_t i = r - 0, j = c - 1;']) assert.ok(src.includes(d), d);
  for (const x of ['lap', 'flx', 'fly']) {
    assert.ok(src.includes(`l_tile_hdiff_stencil_0_${x}_ni = 2,`), `${x}: 2 rows`);
    assert.ok(src.includes(`p_hdiff_stencil_0_${x}[(i & 1) * s0_hdiff_stencil_0_${x}`), `${x}: rows addressed by slot`);
  }
  assert.ok(src.includes('p_hdiff_stencil_0_lap[((i + 1) & 1) * s0_hdiff_stencil_0_lap'), 'flx reads the next row of lap');
  // nothing hdiff writes is read at a K offset: where all four points are in range they share one K loop
  assert.ok(src.includes('if (row_in && c >= cin_lo && c < cin_hi) {'), 'the nests share a K loop inside the tile');
  assert.ok((await source(file, 'hdiff', {})).includes(FUSED_LOOP), 'fuseNests is on in the cpu preset');
  const plain = await source(file, 'hdiff', { fuseNests: false });
  assert.not.ok(plain.includes(FUSED_LOOP), 'fuseNests: false runs the nests one after another');
  assert.not.ok(plain.includes('& 1)'));
  // loop order JIK: the outer loop runs along J, and rows roll along J
  const jik = await source(file, 'hdiff', { fuseNests: true, loopOrder: 'JIK' });
  assert.ok(jik.includes('const int64_t j = r - 1, i = c - 0;'), 'fly (reads lap at j + 1) is a row behind');
  assert.ok(jik.includes('p_hdiff_stencil_0_fly[i * s0_hdiff_stencil_0_fly + (j & 1) * s1_hdiff_stencil_0_fly'));
  // loops with FORWARD/BACKWARD sweeps are not fused (they run level by level in a tile)
  assert.not.ok((await source(path.join(fixtures, 'vertical_solver.py'), 'vertical_solver', { fuseNests: true })).includes(FUSED_LOOP));
});

const BENCH: [string, Record<string, number>][] = [
  ['hdiff', { dt: 0.01 }],
  ['deln_damping', { damp: 0.05 }],
  ['ppm_advection', { dt: 0.1 }],
  ['dycore', { dt: 0.1 }],
  ['pointwise_chain', { rate: 0.5 }],
];
type Tile = [number, number] | [number, number, number];
/** Small tiles cut along K (many tiles, edges, the K trip-count branch) and tall ones (rows rolled many times); hdiff also the preset's. */
const TILES: Tile[] = [[3, 2, 4], [32, 32]];

for (const [entry, scalars] of BENCH) {
  const tiles: Tile[] = entry === 'hdiff' ? [[4, 32], ...TILES] : TILES;
  t(`${entry}: fused nests compiled bitwise equal to the interpreter (${tiles.map((x) => x.join('x')).join(', ')} tiles, remainders)`, async () => {
    const file = path.join(fixtures, `${entry}.py`);
    for (const tile of tiles) {
      const runner = await EntryRunner.create({ codegen: { fuseNests: true, tile } });
      const iface = (await runner.build(file, entry, 'python')).iface!;
      for (const shape of [[19, 45, 5], [12, 13, 3]]) {
        await runner.runAgreeing(file, entry, { fields: syntheticInputs(iface, shape, {}), scalars }, '{}', 0);
      }
    }
  });
}

t('loop order JIK (the outer loop and the rolled rows along J): hdiff and the dycore compiled bitwise equal to the interpreter', async () => {
  const runner = await EntryRunner.create({ codegen: { fuseNests: true, loopOrder: 'JIK', tile: [5, 7] } });
  for (const [entry, scalars] of BENCH.filter(([e]) => e === 'hdiff' || e === 'dycore')) {
    const file = path.join(fixtures, `${entry}.py`);
    const iface = (await runner.build(file, entry, 'python')).iface!;
    for (const shape of [[19, 45, 5], [31, 17, 4]]) await runner.runAgreeing(file, entry, { fields: syntheticInputs(iface, shape, {}), scalars }, '{}', 0);
  }
});

t('jamLevels false: each fused nest runs its own K loop (the dycore, no shared loop); compiled bitwise equal to the interpreter', async () => {
  const file = path.join(fixtures, 'dycore.py');
  assert.ok((await source(file, 'dycore', { fuseNests: true, jamLevels: true })).includes('if (row_in && c >= cin_lo && c < cin_hi) {'), 'shared with jamLevels: true');
  const src = await source(file, 'dycore', { fuseNests: true, jamLevels: false });
  assert.ok(src.includes(FUSED_LOOP));
  assert.not.ok(src.includes('row_in'), 'no shared K loop');
  const runner = await EntryRunner.create({ codegen: { fuseNests: true, jamLevels: false, tile: [3, 2, 4] } });
  const iface = (await runner.build(file, 'dycore', 'python')).iface!;
  await runner.runAgreeing(file, 'dycore', { fields: syntheticInputs(iface, [19, 45, 5], {}), scalars: { dt: 0.1 } }, '{}', 0);
  // a number: loops of more nests than that (the dycore's 12) run one K loop per nest, smaller ones (hdiff's 4) share one
  assert.not.ok((await source(file, 'dycore', { fuseNests: true, jamLevels: 8 })).includes('row_in'), 'the dycore: 12 nests > 8');
  assert.ok((await source(path.join(fixtures, 'hdiff.py'), 'hdiff', { fuseNests: true, jamLevels: 8 })).includes('row_in'), 'hdiff: 4 nests <= 8');
});

/** Conformance and language cases whose generated code the schedule changes (3x2x4 tiles: many tiles with edges). */
const caseDirs = [CASES_DIR, path.resolve(here, '../../fixtures/language')].flatMap((base) =>
  existsSync(base) ? readdirSync(base).sort().map((c) => path.join(base, c)).filter((d) => existsSync(path.join(d, 'case.json'))) : [],
);
t('every conformance and language case the schedule fuses: compiled bitwise equal to the interpreter', async () => {
  const runner = await EntryRunner.create({ codegen: { fuseNests: true, tile: [3, 2, 4] } });
  let fused = 0;
  for (const dir of caseDirs) {
    const spec = readCaseSpec(dir);
    const file = path.join(dir, 'module.py');
    const externals = JSON.stringify(spec.externals ?? {});
    const defines = spec.compiletime ?? {};
    const py = await runner.build(file, spec.entry, 'python', externals, defines);
    assert.is(py.errors.length, 0, `${dir}: ${py.errors.map((d) => formatDiagnostic(d)).join('\n')}`);
    if (!generateCpp(py.program!, { loopOrder: 'IJK', openmp: true, lineDirectives: false, fuseNests: true }).source.includes(FUSED_LOOP)) continue;
    fused++;
    await runner.runAgreeing(file, spec.entry, { fields: loadInputs(dir), scalars: spec.scalars ?? {}, origin: spec.origin, domain: spec.domain }, externals, 0, defines);
  }
  assert.ok(fused >= 6, `only ${fused} cases fused`);
});

t.run();
