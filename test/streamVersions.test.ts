import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import type { ResolvedConfig } from '../core/config/types.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';
import { generateCpp } from '../plugins/codegen/generateCpp.js';
import { EntryRunner } from './entryRunner.js';

/**
 * Issue 18 item 2: codegen.streamVersions fills and commits the versions of in-place arrays
 * row by row inside a tile's fused loop (plugins/codegen/streamedVersions.ts), and
 * codegen.splitRegionTiles runs a loop's nests fused in the tiles its region-only nests do
 * not reach (plugins/codegen/regionSplit.ts), and codegen.balancedTiles cuts the tiles evenly
 * (plugins/codegen/tileCuts.ts). They only move work: every number stays the
 * interpreter's, bit for bit, with many tiles, remainder tiles and K-cut tiles.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const t = suite('stream versions, split region tiles, balanced tiles');

const edgeDamping = path.resolve(here, '../../fixtures/programs/edge_damping.py');

async function source(file: string, entry: string, codegen: Partial<ResolvedConfig['codegen']>): Promise<string> {
  const config = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-stream-')) });
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [file], entry, externals: {}, defines: {}, mode: 'python' });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  return generateCpp(r.entries[0].program!, { ...config.codegen, ...codegen }).source;
}

t('dycore: streamVersions fills u, v, delp and commits them and p inside the fused loop, not around the tile; off by default', async () => {
  const src = await source(path.join(fixtures, 'dycore.py'), 'dycore', { streamVersions: true });
  for (const x of ['u', 'v', 'delp']) assert.ok(src.includes(`int64_t l_stream_fill_${x} = l_tile_${x}_i0;`), `${x} filled row by row`);
  // p is written before it is read: never filled, committed row by row
  assert.not.ok(src.includes('l_stream_fill_p'));
  for (const x of ['u', 'v', 'delp', 'p']) assert.ok(src.includes(`int64_t l_stream_commit_${x} = INT64_MIN;`), `${x} committed row by row`);
  // u is read a row ahead (divergence reads u[1, 0, 0]): filled through r + 1 before the row runs
  assert.ok(src.includes('if (l_stream_fill_u <= r + 1) {'));
  assert.not.ok((await source(path.join(fixtures, 'dycore.py'), 'dycore', {})).includes('l_stream_'), 'off by default');
});

t('dycore: streamVersions compiled bitwise equal to the interpreter (many tiles, K-cut tiles, remainders)', async () => {
  const file = path.join(fixtures, 'dycore.py');
  for (const tile of [[3, 2, 4], [5, 7]] as ([number, number] | [number, number, number])[]) {
    const runner = await EntryRunner.create({ codegen: { fuseNests: true, streamVersions: true, tile } });
    const iface = (await runner.build(file, 'dycore', 'python')).iface!;
    for (const shape of [[19, 45, 5], [70, 40, 3]]) await runner.runAgreeing(file, 'dycore', { fields: syntheticInputs(iface, shape, {}), scalars: { dt: 0.1 } }, '{}', 0);
  }
});

// (del-n damping's corner copies, on the compute domain, reach no point it runs: dead code
// drops them, core/ir/regionReach.ts; edge_damping's edge regions are live)
t('edge damping: splitRegionTiles runs the smoothing passes fused where no edge is in the tile, every nest unfused where one is; off by default', async () => {
  const src = await source(edgeDamping, 'edge_damping', { splitRegionTiles: true });
  assert.ok(src.includes('for (int64_t c = clo; c < chi; ++c) {'), 'a fused loop');
  assert.ok(src.includes('if ((ihi0 <= ilo0 || jhi0 <= jlo0)) {'));
  assert.not.ok((await source(edgeDamping, 'edge_damping', {})).includes('for (int64_t c = clo; c < chi; ++c) {'), 'off by default: unfused');
});

t('edge damping: splitRegionTiles compiled bitwise equal to the interpreter (tiles with and without edges)', async () => {
  for (const tile of [[3, 2, 4], [4, 32]] as ([number, number] | [number, number, number])[]) {
    const runner = await EntryRunner.create({ codegen: { fuseNests: true, splitRegionTiles: true, tile } });
    const iface = (await runner.build(edgeDamping, 'edge_damping', 'python')).iface!;
    // 110 points along I: three tiles of the widened tile, the east ones reaching no west edge
    for (const shape of [[110, 30, 3], [19, 45, 5]]) await runner.runAgreeing(edgeDamping, 'edge_damping', { fields: syntheticInputs(iface, shape, {}), scalars: { damp: 0.05 } }, '{}', 0);
  }
});

t('rollVersions: streamed versions and zero-filled temporaries keep only the rows in flight (del-n q and tmp: 8 rows, slot i & 7); off by default', async () => {
  const file = path.join(fixtures, 'deln_damping.py');
  const src = await source(file, 'deln_damping', { streamVersions: true, rollVersions: true, tile: [64, 64, 16] });
  assert.ok(src.includes('const int64_t l_tile_q_ni = 8,'), 'q keeps 8 rows');
  assert.ok(src.includes('double* __restrict__ const to = p_q + (i & 7) * s0_q + j * s1_q;'), 'filled into its slot');
  assert.ok(src.includes('const double* __restrict__ const from = p_q + (i & 7) * s0_q + j * s1_q;'), 'committed from its slot');
  assert.ok(src.includes('p_q[((i + 1) & 7) * s0_q'), 'the nests read it through the slot');
  // tmp starts zero-filled (the passes read it a point past the domain's edge): its zeros are laid as each row enters its slot
  assert.ok(src.includes('const int64_t l_tile_tmp_ni = 8,'), 'tmp keeps 8 rows');
  assert.ok(src.includes('for (; l_zero_row_tmp <= std::min<int64_t>(r + 0, l_tile_tmp_i1); ++l_zero_row_tmp) {'), 'zeros laid row by row');
  const plain = await source(file, 'deln_damping', { streamVersions: true, tile: [64, 64, 16] });
  assert.not.ok(plain.includes('(i & 7)') || plain.includes('l_zero_row_tmp'), 'off by default: the whole tile');
});

t('rollVersions: del-n and the dycore compiled bitwise equal to the interpreter (rows rolled many times, K-cut tiles, remainders)', async () => {
  const cases: [string, Record<string, number>, number[][]][] = [
    ['deln_damping', { damp: 0.05 }, [[110, 30, 3], [19, 45, 5]]],
    ['dycore', { dt: 0.1 }, [[70, 40, 3], [19, 45, 5]]],
  ];
  for (const [entry, scalars, shapes] of cases) {
    const file = path.join(fixtures, `${entry}.py`);
    for (const tile of [[32, 8, 2], [5, 7]] as ([number, number] | [number, number, number])[]) {
      const runner = await EntryRunner.create({ codegen: { fuseNests: true, streamVersions: true, rollVersions: true, tile } });
      const iface = (await runner.build(file, entry, 'python')).iface!;
      for (const shape of shapes) await runner.runAgreeing(file, entry, { fields: syntheticInputs(iface, shape, {}), scalars }, '{}', 0);
    }
  }
});

t('balancedTiles: the tiles share the domain evenly (cuts at ti * dom0 / nti); dycore and del-n compiled bitwise equal to the interpreter', async () => {
  const src = await source(path.join(fixtures, 'dycore.py'), 'dycore', { balancedTiles: true });
  assert.ok(src.includes('(ti * dom0 / nti)') && src.includes('((tj + 1) * dom1 / ntj)'), 'balanced cuts');
  assert.not.ok((await source(path.join(fixtures, 'dycore.py'), 'dycore', {})).includes('dom0 / nti'), 'off by default');
  for (const [entry, scalars, shape] of [['dycore', { dt: 0.1 }, [70, 40, 3]], ['deln_damping', { damp: 0.05 }, [110, 30, 3]]] as const) {
    const file = path.join(fixtures, `${entry}.py`);
    const runner = await EntryRunner.create({ codegen: { fuseNests: true, balancedTiles: true, streamVersions: true, tile: [3, 2, 4] } });
    const iface = (await runner.build(file, entry, 'python')).iface!;
    await runner.runAgreeing(file, entry, { fields: syntheticInputs(iface, [...shape], {}), scalars }, '{}', 0);
  }
});

t.run();
