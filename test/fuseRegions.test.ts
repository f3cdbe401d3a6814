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
 * Issue 18 items 2 and 5: codegen.fuseRegions lets nests with horizontal regions fuse
 * (fuseNests), each nest's K loop emitted once per combination of its region tests, taken
 * once per column (plugins/codegen/regionVersions.ts). Every number stays the interpreter's,
 * bit for bit: on the region fixtures with remainder tiles, K-cut and tall tiles, both loop
 * orders, and on every conformance and language case whose regions it versions.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const t = suite('fuse regions');

async function source(file: string, entry: string, codegen: Partial<ResolvedConfig['codegen']>): Promise<string> {
  const config = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-fuseregions-')) });
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [file], entry, externals: parseExternals('{}'), defines: {}, mode: 'python' });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  return generateCpp(r.entries[0].program!, { ...config.codegen, ...codegen }).source;
}

const FUSED_LOOP = 'for (int64_t c = clo; c < chi; ++c) {';
const TEST = 'const bool orch_rg0 = (i >= 0LL && i < 1LL) || (i >= dom0 && i < (dom0 + 1));';

t('ppm_advection: fused with fuseRegions, its edge test taken once per column before two K loops; unfused without it', async () => {
  const file = path.join(fixtures, 'ppm_advection.py');
  const src = await source(file, 'ppm_advection', { fuseNests: true, fuseRegions: true });
  assert.ok(src.includes(FUSED_LOOP), 'fused');
  assert.ok(src.includes(TEST), 'the region test, once per column');
  assert.ok(src.includes('if (!orch_rg0) {') && src.includes('} else {'), 'a K loop without the region and one with it');
  // no test left inside a K loop: the region's body sits in a plain block
  assert.not.ok(src.includes('if ((i >= 0LL && i < 1LL)'), 'no per-level test');
  // bl/br a row after al (they read al at i + 1), flux with them (it reads them at i - 1 and i)
  for (const d of ['const int64_t i = r - 0, j = c - 0;', 'const int64_t i = r - 1, j = c - 0;']) assert.ok(src.includes(d), d);
  assert.not.ok(src.includes('const int64_t i = r - 2'));
  const preset = await source(file, 'ppm_advection', { fuseRegions: false });
  assert.not.ok(preset.includes(FUSED_LOOP), 'without fuseRegions, nests with regions stay unfused');
  assert.ok(preset.includes('if ((i >= 0LL && i < 1LL)'), 'and tests the region inside the K loop, as before');
  assert.not.ok((await source(file, 'ppm_advection', { fuseNests: false, fuseRegions: true })).includes(FUSED_LOOP), 'fuseRegions needs fuseNests');
});

t('edge_damping: its loop with regions has a nest of regions only (run clipped to its box): unchanged by fuseRegions', async () => {
  // (del-n damping's corner copies were the case: on the compute domain they reach no point, and dead code drops them)
  const file = path.resolve(here, '../../fixtures/programs/edge_damping.py');
  assert.is(await source(file, 'edge_damping', { fuseRegions: true }), await source(file, 'edge_damping', { fuseRegions: false }));
});

/** (deln_damping: through a tile's scratch and the loops the schedule leaves as they are) */
const BENCH: [string, Record<string, number>][] = [
  ['ppm_advection', { dt: 0.1 }],
  ['deln_damping', { damp: 0.05 }],
  ['dycore', { dt: 0.1 }],
];
type Tile = [number, number] | [number, number, number];
/** Small tiles cut along K (many tiles, edges), tall ones (rows rolled many times), and JIK (rows along J). */
const SCHEDULES: [string, Tile][] = [['IJK', [3, 2, 4]], ['IJK', [32, 32]], ['JIK', [5, 7]]];

for (const [entry, scalars] of BENCH) {
  t(`${entry}: nests with regions fused, compiled bitwise equal to the interpreter (${SCHEDULES.map(([o, x]) => `${o} ${x.join('x')}`).join(', ')} tiles, remainders)`, async () => {
    const file = path.join(fixtures, `${entry}.py`);
    for (const [loopOrder, tile] of SCHEDULES) {
      const runner = await EntryRunner.create({ codegen: { fuseNests: true, fuseRegions: true, loopOrder, tile } });
      const iface = (await runner.build(file, entry, 'python')).iface!;
      for (const shape of [[19, 45, 5], [12, 13, 3]]) await runner.runAgreeing(file, entry, { fields: syntheticInputs(iface, shape, {}), scalars }, '{}', 0);
    }
  });
}

const caseDirs = [CASES_DIR, path.resolve(here, '../../fixtures/language')].flatMap((base) =>
  existsSync(base) ? readdirSync(base).sort().map((c) => path.join(base, c)).filter((d) => existsSync(path.join(d, 'case.json'))) : [],
);
t('every conformance and language case whose regions fused nests version: compiled bitwise equal to the interpreter', async () => {
  const runner = await EntryRunner.create({ codegen: { fuseNests: true, fuseRegions: true, tile: [3, 2, 4] } });
  const versioned: string[] = [];
  for (const dir of caseDirs) {
    const spec = readCaseSpec(dir);
    const file = path.join(dir, 'module.py');
    const externals = JSON.stringify(spec.externals ?? {});
    const defines = spec.compiletime ?? {};
    const py = await runner.build(file, spec.entry, 'python', externals, defines);
    assert.is(py.errors.length, 0, `${dir}: ${py.errors.map((d) => formatDiagnostic(d)).join('\n')}`);
    if (!generateCpp(py.program!, { loopOrder: 'IJK', openmp: true, lineDirectives: false, fuseNests: true, fuseRegions: true }).source.includes('const bool orch_rg0')) continue;
    versioned.push(path.basename(dir));
    await runner.runAgreeing(file, spec.entry, { fields: loadInputs(dir), scalars: spec.scalars ?? {}, origin: spec.origin, domain: spec.domain }, externals, 0, defines);
  }
  // (most region cases are one nest, or region-only nests clipped to their regions: nothing to fuse)
  assert.ok(versioned.length >= 1, 'no case versioned');
});

t.run();
