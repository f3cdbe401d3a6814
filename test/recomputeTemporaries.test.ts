import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ResolvedConfig } from '../core/config/types.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { launches } from '../core/ir/visit.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';
import { cpuScheduleKnobs } from '../plugins/codegen/cpuScheduleKnobs.js';
import { generateCpp } from '../plugins/codegen/generateCpp.js';
import { EntryRunner } from './entryRunner.js';

/**
 * Issue 18 items 2 and 5: codegen.recomputeTemporaries (plugins/simplify/recomputeTemporaries.ts)
 * copies a nest that only writes temporaries into the later nests that read them at horizontal
 * offsets, once per offset, its regions moved by the offset. ppm_advection's al, bl and br go:
 * one nest recomputes them in registers. Every number stays the interpreter's, bit for bit.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const t = suite('recompute temporaries');

async function nests(entry: string, codegen: Partial<ResolvedConfig['codegen']>): Promise<{ transients: string[]; nests: number; text: string }> {
  const runner = await EntryRunner.create({ codegen });
  const r = await runner.build(path.join(fixtures, `${entry}.py`), entry, 'python');
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  const ls = launches(r.program!.body);
  return { transients: ls.flatMap((l) => l.transients), nests: ls.reduce((n, l) => n + l.loops.reduce((m, v) => m + v.body.length, 0), 0), text: JSON.stringify(ls) };
}

t('ppm_advection: al, bl and br recomputed in the flux nest (one nest, no transient); three nests and three transients without it', async () => {
  const on = await nests('ppm_advection', { recomputeTemporaries: true });
  assert.equal(on.transients, []);
  assert.is(on.nests, 1);
  // al at i - 1, i and i + 1 (twice: once for bl/br at i - 1, once at i), each with its edge region moved
  for (const local of ['ppm_flux_x_0_al__at_0_0__at_m1_0', 'ppm_flux_x_0_al__at_1_0__at_0_0', 'ppm_flux_x_0_bl__at_m1_0', 'ppm_flux_x_0_br__at_0_0']) assert.ok(on.text.includes(local), local);
  const off = await nests('ppm_advection', { recomputeTemporaries: false });
  assert.equal(off.transients, ['ppm_flux_x_0_al', 'ppm_flux_x_0_bl', 'ppm_flux_x_0_br']);
  assert.is(off.nests, 3);
});

t("with it, a launch's threaded region stays out of line (inlined into the entry function, g++ left ppm's one K loop scalar: 51 against 14.5 us)", async () => {
  const runner = await EntryRunner.create({ codegen: { recomputeTemporaries: true } });
  const r = await runner.build(path.join(fixtures, 'ppm_advection.py'), 'ppm_flux_x', 'python');
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  const opts = { loopOrder: 'IJK', openmp: true, lineDirectives: false };
  assert.ok(generateCpp(r.program!, { ...opts, recomputeTemporaries: true }).source.includes('const auto region = [=]() __attribute__((noinline)) {'));
  assert.not.ok(generateCpp(r.program!, opts).source.includes('noinline'));
});

t('orch tune tries it', () => {
  const knob = cpuScheduleKnobs.find((k) => k.option === 'recomputeTemporaries');
  assert.ok(knob);
  assert.equal(knob!.values({ base: { loopOrder: 'IJK', openmp: true, lineDirectives: true }, domain: [12, 12, 79] }), [true, false]);
});

const BENCH: [string, Record<string, number>][] = [
  ['ppm_advection', { dt: 0.1 }],
  ['hdiff', { dt: 0.01 }],
  ['deln_damping', { damp: 0.05 }],
  ['dycore', { dt: 0.1 }],
];
type Tile = [number, number] | [number, number, number] | false;
const SCHEDULES: [string, Tile][] = [['IJK', [3, 2, 3]], ['IJK', [32, 32]], ['JIK', [5, 7]], ['IJK', false]];

for (const [entry, scalars] of BENCH) {
  t(`${entry}: compiled with recomputeTemporaries bitwise equal to the interpreter (${SCHEDULES.map(([o, x]) => `${o} ${x ? x.join('x') : 'untiled'}`).join(', ')}, -march=native)`, async () => {
    const file = path.join(fixtures, `${entry}.py`);
    for (const [loopOrder, tile] of SCHEDULES) {
      const runner = await EntryRunner.create({ codegen: { recomputeTemporaries: true, alignTileColumns: true, loopOrder, tile }, extraFlags: ['-march=native', '-ffp-contract=off'] });
      const iface = (await runner.build(file, entry, 'python')).iface!;
      for (const shape of [[19, 45, 7], [12, 13, 9]]) await runner.runAgreeing(file, entry, { fields: syntheticInputs(iface, shape, {}), scalars }, '{}', 0);
    }
  });
}

t.run();
