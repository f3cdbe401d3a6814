import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NATIVE_DIR } from '../core/cache/hashing.js';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import type { ResolvedConfig } from '../core/config/types.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';
import { cpuScheduleKnobs } from '../plugins/codegen/cpuScheduleKnobs.js';
import { generateCpp } from '../plugins/codegen/generateCpp.js';
import { EntryRunner } from './entryRunner.js';

/**
 * Issue 18 item 3: codegen.prefetchColumns prefetches, at each column of a tile's fused loop,
 * the column a few ahead of the newest each field is read at, in the row it is first read in
 * (plugins/codegen/columnPrefetch.ts). A hint: compiled results stay the interpreter's, bit
 * for bit, also where the prefetched column lies past the tile or the array.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const t = suite('column prefetch');

async function source(entry: string, codegen: Partial<ResolvedConfig['codegen']>): Promise<string> {
  const config = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-prefetch-')) });
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [path.join(fixtures, `${entry}.py`)], entry, externals: {}, defines: {}, mode: 'python' });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  return generateCpp(r.entries[0].program!, { ...config.codegen, lineDirectives: false, ...codegen }).source;
}

const prefetches = (src: string) => [...src.matchAll(/orch::prefetch_column\(reinterpret_cast<uintptr_t>\((p_\w+)\) \+ static_cast<uintptr_t>\(([^;]*?) \* s0_\w+ \+ ([^;]*?) \* s1_/g)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);

t('hdiff: q prefetched in the row lap first reads (r + 1), coeff in the row out reads (r - 1), both 4 columns ahead; nothing for the temporaries; off by default', async () => {
  const src = await source('hdiff', { prefetchColumns: 4 });
  assert.equal(prefetches(src), ['p_q (r + 1) (c + 4)', 'p_coeff (r - 1) (c + 4)']);
  // decided once a call: only where the domain is past L2 a thread
  assert.ok(src.includes('const bool prefetch_columns = orch::prefetch_pays('));
  assert.ok(src.includes('if (prefetch_columns) {\n'));
  // loop order JIK: r runs along J, so the rows are J indices
  assert.equal(prefetches(await source('hdiff', { prefetchColumns: 2, loopOrder: 'JIK' })), ['p_q (c + 2) (r + 1)', 'p_coeff (c + 2) (r - 1)']);
  assert.equal(prefetches(await source('hdiff', {})), []);
  assert.equal(prefetches(await source('hdiff', { prefetchColumns: 4, fuseNests: false })), [], 'only fused nests');
  // with streamed outputs too: the streamed path and the plain one each prefetch
  assert.equal(prefetches(await source('hdiff', { prefetchColumns: 4, streamOutputs: true })).length, 4);
});

t('ppm, del-n and the dycore prefetch in their fused loops too (edge columns included); pointwise_chain and the Thomas solver fuse nothing and generate the same code', async () => {
  assert.equal(prefetches(await source('ppm_advection', { prefetchColumns: 4 })), ['p_q (r + 1) (c + 4)', 'p_u (r - 1) (c + 4)']);
  // the dycore's v is read a column ahead (j + 1) in the row it is first read in
  assert.ok(prefetches(await source('dycore', { prefetchColumns: 4 })).includes('p_v r (c + 5)'));
  assert.ok(prefetches(await source('deln_damping', { prefetchColumns: 4 })).includes('p_q (r + 1) (c + 4)'));
  for (const entry of ['pointwise_chain', 'vertical_solver']) assert.is(await source(entry, { prefetchColumns: 4 }), await source(entry, {}), entry);
});

t('orch tune tries prefetchColumns 2 and 4', () => {
  const knob = cpuScheduleKnobs.find((k) => k.option === 'prefetchColumns');
  assert.equal(knob?.values({ base: { loopOrder: 'IJK', openmp: true, lineDirectives: true }, domain: [128, 128, 80] }), [false, 2, 4]);
});

const BENCH: [string, Record<string, number>][] = [
  ['hdiff', { dt: 0.01 }],
  ['ppm_advection', { dt: 0.1 }],
  ['deln_damping', { damp: 0.05 }],
  ['dycore', { dt: 0.1 }],
];

t('hdiff, ppm_advection, del-n and the dycore with prefetchColumns (and streamed outputs, -march=native), small and preset tiles: compiled bitwise equal to the interpreter', async () => {
  for (const codegen of [{ prefetchColumns: 1, tile: [3, 2, 4] as [number, number, number] }, { prefetchColumns: 4, streamOutputs: true }]) {
    const runner = await EntryRunner.create({ codegen, extraFlags: ['-march=native', '-ffp-contract=off', '-DORCH_STREAM_STORES=1', '-DORCH_PREFETCH_COLUMNS=1'] });
    for (const [entry, scalars] of BENCH) {
      const file = path.join(fixtures, `${entry}.py`);
      const iface = (await runner.build(file, entry, 'python')).iface!;
      for (const shape of [[19, 45, 5], [12, 13, 13]]) await runner.runAgreeing(file, entry, { fields: syntheticInputs(iface, shape, {}), scalars }, '{}', 0);
    }
  }
});

t('orch::prefetch_pays: past ORCH_PREFETCH_MIN_POINTS a thread; ORCH_PREFETCH_COLUMNS forces either choice', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-prefetch-guard-'));
  const src = path.join(dir, 'guard.cpp');
  writeFileSync(
    src,
    `#include "orch_prefetch.h"
#include <cstdio>
int main() {
  const long long sizes[][2] = {{12 * 12 * 79, 1}, {24 * 24 * 72, 2}, {32 * 32 * 80, 1}, {32 * 32 * 80, 2}, {128 * 128 * 80, 2}, {128 * 128 * 80, 0}};
  for (auto& s : sizes) std::printf("%d", orch::prefetch_pays(s[0], static_cast<int>(s[1])) ? 1 : 0);
  std::printf("\\n");
}
`,
  );
  const run = (flags: string[]) => {
    const exe = path.join(dir, 'guard');
    execFileSync('g++', ['-O2', '-std=c++17', ...flags, `-I${NATIVE_DIR}`, '-o', exe, src]);
    return execFileSync(exe).toString().trim();
  };
  assert.is(run([]), '001011');
  assert.is(run(['-DORCH_PREFETCH_COLUMNS=1']), '111111');
  assert.is(run(['-DORCH_PREFETCH_COLUMNS=0']), '000000');
});

t.run();
