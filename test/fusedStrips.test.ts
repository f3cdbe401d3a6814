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
import type { Program } from '../core/ir/types.js';
import { fusionDelays } from '../core/ir/nestFusion.js';
import { launches } from '../core/ir/visit.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';
import { generateCpp } from '../plugins/codegen/generateCpp.js';
import { EntryRunner } from './entryRunner.js';

/**
 * Issue 18 item 2: codegen.fusedStrip runs a tile's fused loop in strips of columns, every
 * row of one strip before the next (plugins/codegen/fusedNests.ts), its delays holding along
 * both axes (core/ir/nestFusion.ts); with streamVersions each strip fills and commits its
 * own columns of the versions (plugins/codegen/streamedVersions.ts). Only the order of the
 * points changes: every number stays the interpreter's, bit for bit, with strips narrower
 * than the tile, remainder strips, K-cut and whole-column tiles.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const t = suite('fused strips');

async function program(entry: string): Promise<{ program: Program; codegen: ResolvedConfig['codegen'] }> {
  const config = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-strips-')) });
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [path.join(fixtures, `${entry}.py`)], entry, externals: {}, defines: {}, mode: 'python' });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  return { program: r.entries[0].program!, codegen: config.codegen };
}

async function source(entry: string, codegen: Partial<ResolvedConfig['codegen']>): Promise<string> {
  const p = await program(entry);
  return generateCpp(p.program, { ...p.codegen, ...codegen }).source;
}

t('dycore: delays hold along both axes with strips (continuity reads fy a column ahead: [1, 1], not [1, 0])', async () => {
  const { program: p } = await program('dycore');
  const launch = launches(p.body).find((s) => s.loops.length === 1 && s.loops[0].body.length === 12);
  assert.ok(launch, 'one launch of 12 nests (3 substeps unrolled)');
  const v = launch.loops[0];
  const sub = [[0, 0], [0, 0], [0, 0], [1, 1]];
  assert.equal(fusionDelays(v, 0, false, true), [0, 2, 4].flatMap((s) => sub.map(([a, b]) => [a + s, b + s])));
  assert.equal(fusionDelays(v, 0)?.[3], [1, 0], 'in the loop order only');
});

t('dycore: fusedStrip walks the fused loop in strips, no array rolled; off by default', async () => {
  const src = await source('dycore', { fusedStrip: 8 });
  assert.ok(src.includes('for (int64_t cs = clo; cs < chi; cs += 8) {'));
  assert.ok(src.includes('for (int64_t c = cs; c < ce; ++c) {'));
  assert.ok(src.includes('const int64_t i = r - 1, j = c - 1;'), 'delays along both axes');
  assert.not.ok(src.includes('(i & 7)'), 'no rolled rows');
  const plain = await source('dycore', {});
  assert.not.ok(plain.includes('cs +='), 'off by default');
  assert.ok(plain.includes('(i & 7)'), 'rolled rows by default');
});

t('dycore: streamVersions with strips fills and commits each strip\'s columns', async () => {
  const src = await source('dycore', { fusedStrip: 8, streamVersions: true });
  // divergence reads v[0, 1, 0]: v is filled a column past the strip, u (read at [1, 0, 0]) to its end
  assert.ok(src.includes('for (int64_t j = std::max<int64_t>(l_tile_v_j0, (cs == clo ? l_tile_v_j0 : cs + 1)); j <= std::min<int64_t>(l_tile_v_j1, (ce == chi ? l_tile_v_j1 : ce - 1 + 1)); ++j) {'), 'v read a column ahead');
  assert.ok(src.includes('for (int64_t j = std::max<int64_t>(l_tile_u_j0, (cs == clo ? l_tile_u_j0 : cs + 0)); j <= std::min<int64_t>(l_tile_u_j1, (ce == chi ? l_tile_u_j1 : ce - 1 + 0)); ++j) {'), 'u to the strip\'s end');
  assert.ok(src.includes('(cs == clo ? INT64_MIN : cs - 5)'), 'committed behind the last writer (delay 5)');
});

const CASES: [string, Record<string, number>, number[][]][] = [
  ['dycore', { dt: 0.1 }, [[19, 45, 5], [70, 40, 3]]],
  ['hdiff', { dt: 0.01 }, [[19, 45, 5]]],
  ['ppm_advection', { dt: 0.1 }, [[19, 45, 5]]],
];
type Tile = [number, number] | [number, number, number];
const SCHEDULES: { tile: Tile; fusedStrip: number; streamVersions?: boolean; versionedTileK?: false }[] = [
  { tile: [5, 24], fusedStrip: 4 },
  { tile: [4, 9, 4], fusedStrip: 3, streamVersions: true },
  { tile: [6, 30], fusedStrip: 7, streamVersions: true, versionedTileK: false },
];
for (const [entry, scalars, shapes] of CASES) {
  t(`${entry}: strips compiled bitwise equal to the interpreter (strips narrower than the tile, remainders, streamed versions)`, async () => {
    const file = path.join(fixtures, `${entry}.py`);
    for (const s of SCHEDULES) {
      if (entry !== 'dycore' && s.streamVersions) continue;
      const runner = await EntryRunner.create({ codegen: { fuseNests: true, ...s } });
      const iface = (await runner.build(file, entry, 'python')).iface!;
      for (const shape of shapes) await runner.runAgreeing(file, entry, { fields: syntheticInputs(iface, shape, {}), scalars }, '{}', 0);
    }
  });
}

t.run();
