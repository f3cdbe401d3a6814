import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ResolvedConfig } from '../core/config/types.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { launches } from '../core/ir/visit.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';
import { EntryRunner } from './entryRunner.js';

/**
 * Issue 18 item 3: `codegen.tile: 'auto'` gives each launch the tile of its kind
 * (plugins/simplify/launchTiles.ts) instead of one preset tile for all: fused nests with
 * halos tall tiles, FORWARD/BACKWARD sweeps and unfused halos 4x32, launches with versions
 * of in-place arrays a wide base their band widens. An explicit size still applies to every
 * launch, and the per-launch tiles compile bitwise equal to the interpreter.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const t = suite('per-launch tiles');

/** The tile of each launch of a bench fixture ('untiled' for a launch without one), as the IR prints it. */
async function tilesOf(entry: string, codegen: Partial<ResolvedConfig['codegen']>): Promise<string[]> {
  const runner = await EntryRunner.create({ codegen });
  const r = await runner.build(path.join(fixtures, `${entry}.py`), entry, 'python');
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  return launches(r.program!.body).map((l) => (l.tile ? [...l.tile.size, ...(l.tile.k ? [l.tile.k] : [])].join('x') : 'untiled'));
}

t("tile 'auto': each bench launch gets the tile of its kind", async () => {
  const auto = { tile: 'auto' as const, fuseNests: true };
  // fused nests with halos: tall tiles
  assert.equal(await tilesOf('hdiff', auto), ['32x32']);
  // the same nests unfused keep whole temporaries per tile: 4x32
  assert.equal(await tilesOf('hdiff', { ...auto, fuseNests: false }), ['4x32']);
  // FORWARD/BACKWARD sweeps keep 4x32
  assert.equal(await tilesOf('vertical_solver', auto), ['4x32']);
  // horizontal regions are not fused: 4x32
  assert.equal(await tilesOf('ppm_advection', auto), ['4x32']);
  // versions of in-place arrays: 32x32 widened by their band (the preset's 4x32 widened to 36x64x16)
  assert.equal(await tilesOf('dycore', auto), ['64x64x16']);
  // (del-n's band is 4 wide since its dead corner copies went: 32x32 is a multiple of it)
  assert.equal(await tilesOf('deln_damping', auto), ['32x32x16']);
  // with versions and zero-filled temporaries that keep a few rows (streamVersions + rollVersions): whole rows along I
  const rolled = { ...auto, streamVersions: true, rollVersions: true };
  assert.equal(await tilesOf('deln_damping', rolled), ['128x64x16']);
  assert.equal(await tilesOf('dycore', rolled), ['128x64x16']);
  assert.equal(await tilesOf('deln_damping', { ...rolled, rollVersions: false }), ['32x32x16'], 'only with both');
});

t('an explicit tile applies to every launch, as before', async () => {
  assert.equal(await tilesOf('hdiff', { tile: [8, 16], fuseNests: true }), ['8x16']);
  assert.equal(await tilesOf('vertical_solver', { tile: [8, 16] }), ['8x16']);
  assert.equal(await tilesOf('dycore', { tile: [4, 32], fuseNests: true }), ['36x64x16']);
  assert.equal(await tilesOf('hdiff', { tile: false }), ['untiled']);
});

const BENCH: [string, Record<string, number>][] = [
  ['hdiff', { dt: 0.01 }],
  ['dycore', { dt: 0.1 }],
];

t("tile 'auto': hdiff and the dycore compiled bitwise equal to the interpreter (several tiles with remainders, along K too)", async () => {
  const runner = await EntryRunner.create({ codegen: { tile: 'auto', fuseNests: true } });
  for (const [entry, scalars] of BENCH) {
    const file = path.join(fixtures, `${entry}.py`);
    const iface = (await runner.build(file, entry, 'python')).iface!;
    // 72x77 compute points: 3 tiles of 32 along each axis (the dycore: 2 of 64), the last ones partial; 18 levels: a 16-level tile and a 2-level one
    await runner.runAgreeing(file, entry, { fields: syntheticInputs(iface, [78, 83, 18], {}), scalars }, '{}', 0);
  }
});

t("tile 'auto' with rollVersions: del-n and the dycore in 128x64x16 tiles compiled bitwise equal to the interpreter (rows rolled, J cuts, K remainders)", async () => {
  const runner = await EntryRunner.create({ codegen: { tile: 'auto', fuseNests: true, streamVersions: true, rollVersions: true } });
  for (const [entry, scalars] of [['deln_damping', { damp: 0.05 }], ['dycore', { dt: 0.1 }]] as const) {
    const file = path.join(fixtures, `${entry}.py`);
    const iface = (await runner.build(file, entry, 'python')).iface!;
    // 134 columns along J: 2 tiles of 64 and a remainder; 18 levels: a 16-level tile and a 2-level one
    await runner.runAgreeing(file, entry, { fields: syntheticInputs(iface, [40, 140, 18], {}), scalars }, '{}', 0);
  }
});

t.run();
