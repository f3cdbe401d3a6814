import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NATIVE_DIR } from '../core/cache/hashing.js';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { generateCpp } from '../plugins/codegen/generateCpp.js';
import { loadInputs, readCaseSpec } from './caseFolder.js';
import { EntryRunner } from './entryRunner.js';

/**
 * Tiles of FORWARD/BACKWARD launches stage the fields they sweep (plugins/codegen/sweepStaging.ts,
 * native/orch_stage.h). The numbers are checked against the interpreter by passEquivalence
 * (staging is on by default); here: which arrays are staged, and the copy itself on boxes
 * whose sizes are no multiple of its 4x4 blocks, and on a view that is not K-contiguous.
 */
const here = path.dirname(fileURLToPath(import.meta.url));

async function solverSource(stageSweeps?: boolean): Promise<string> {
  return source(path.resolve(here, '../../fixtures/bench/vertical_solver.py'), 'vertical_solver', stageSweeps);
}

async function source(fixture: string, entry: string, stageSweeps?: boolean): Promise<string> {
  const config = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-stage-')) });
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [fixture], entry, externals: {}, defines: {}, mode: 'python' });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  // without blocks (sweepBlocks.test.ts): they are a schedule of their own over staged tiles
  return generateCpp(r.entries[0].program!, { ...config.codegen, sweepBlock: false, ...(stageSweeps === undefined ? {} : { stageSweeps }) }).source;
}

test('the Thomas solver stages kdiff and q in, and copies q_new out over its two writer nests only (written before read: not copied in); stageSweeps: false (the default) stages nothing', async () => {
  const src = await solverSource(true);
  const calls = (dir: string) => [...src.matchAll(new RegExp(`orch::stage_columns<double>\\(${dir}, l_stage_(\\w+)_g`, 'g'))].map((m) => m[1]).sort();
  assert.equal(calls('true'), ['kdiff', 'q']);
  assert.equal(calls('false'), ['q_new', 'q_new']);
  assert.not.ok((await solverSource(false)).includes('orch::stage_columns'));
  // off by default: timed on an AVX-512 machine, staging was 5-10% slower than reading in place
  assert.not.ok((await solverSource()).includes('orch::stage_columns'));
});

test('a staged sweep tile keeps the preset tile area (4x32) and runs along J as far as the domain allows; unstaged it keeps 4x32', async () => {
  assert.ok((await solverSource(true)).includes('const int64_t tsj = std::min<int64_t>(128, std::max<int64_t>(1, dom1)), tsi = std::max<int64_t>(1, 128 / tsj);'));
  const plain = await solverSource(false);
  assert.not.ok(plain.includes('tsj'));
  assert.ok(plain.includes('nti = std::max<int64_t>(1, dom0 / 4), ntj = std::max<int64_t>(1, dom1 / 32)'));
});

test('recurrences with no temporaries are tiled to stage their fields (sweepTiling.ts): a copied in, b and x out; with stageSweeps false they run untiled, column by column', async () => {
  const fixture = path.resolve(here, '../../fixtures/language/column-recurrences/module.py');
  const src = await source(fixture, 'recurrences', true);
  const calls = (dir: string) => [...src.matchAll(new RegExp(`orch::stage_columns<double>\\(${dir}, l_stage_(\\w+)_g`, 'g'))].map((m) => m[1]).sort();
  // b and x are written (levels 0 and nz-1) before their k-1 / k+1 reads: copied out only,
  // over the ranges of their two writer nests each
  assert.equal(calls('true'), ['a']);
  assert.equal(calls('false'), ['b', 'b', 'x', 'x']);
  const plain = await source(fixture, 'recurrences', false);
  assert.not.ok(plain.includes('orch::stage_columns'));
  assert.not.ok(plain.includes('scratch'), 'no tile: nothing would be kept in cache');
});

test('recurrences compiled bitwise equal to the interpreter: staged tiles, and untiled with 4 columns interleaved (stageSweeps false)', async () => {
  const dir = path.resolve(here, '../../fixtures/language/column-recurrences');
  const spec = readCaseSpec(dir);
  const plain = await source(path.join(dir, 'module.py'), 'recurrences', false);
  assert.ok(plain.includes('#pragma GCC unroll 4'), 'the column loop interleaves columns (columnJam.ts)');
  for (const stageSweeps of [true, false]) {
    const runner = await EntryRunner.create({ codegen: { stageSweeps } });
    await runner.runAgreeing(path.join(dir, 'module.py'), spec.entry, { fields: loadInputs(dir), scalars: spec.scalars ?? {}, origin: spec.origin, domain: spec.domain }, '{}', 0);
  }
});

test('stage_columns copies a box into [K][I][J] and back exactly (remainders, non-contiguous K)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-stage-copy-'));
  const src = path.join(dir, 'copy.cpp');
  writeFileSync(
    src,
    `#include "orch_stage.h"
#include <cstdio>
#include <vector>
int check(int64_t ni, int64_t nj, int64_t nk, int64_t kstep) {
  const int64_t NJ = nj + 3, NK = (nk + 2) * kstep, s1 = NK, s0 = NJ * NK;
  std::vector<double> f((ni + 1) * s0), back((ni + 1) * s0, -1.0);
  for (size_t p = 0; p < f.size(); ++p) f[p] = 0.5 + p;
  const int64_t sk = orch::stage_plane(ni * nj);
  std::vector<double> st(sk * nk, -7.0);
  double* box = f.data() + 1 * s0 + 2 * s1 + 1 * kstep;
  orch::stage_columns<double>(true, box, s0, s1, kstep, st.data(), sk, nj, ni, nj, nk);
  for (int64_t i = 0; i < ni; ++i) for (int64_t j = 0; j < nj; ++j) for (int64_t k = 0; k < nk; ++k)
    if (st[k * sk + i * nj + j] != box[i * s0 + j * s1 + k * kstep]) { std::printf("in %lld %lld %lld\\n", (long long)i, (long long)j, (long long)k); return 1; }
  double* bbox = back.data() + 1 * s0 + 2 * s1 + 1 * kstep;
  orch::stage_columns<double>(false, bbox, s0, s1, kstep, st.data(), sk, nj, ni, nj, nk);
  for (int64_t i = 0; i < ni + 1; ++i) for (int64_t j = 0; j < NJ; ++j) for (int64_t k = 0; k < NK; ++k) {
    const bool inside = i >= 1 && i < 1 + ni && j >= 2 && j < 2 + nj && k >= kstep && k < kstep * (1 + nk) && k % kstep == 0;
    const double want = inside ? f[i * s0 + j * s1 + k] : -1.0;
    if (back[i * s0 + j * s1 + k] != want) { std::printf("out %lld %lld %lld\\n", (long long)i, (long long)j, (long long)k); return 1; }
  }
  return 0;
}
int main() {
  int bad = 0;
  for (int64_t ni : {1, 3, 4}) for (int64_t nj : {1, 4, 7, 32}) for (int64_t nk : {1, 4, 5, 11}) for (int64_t ks : {1, 2}) bad |= check(ni, nj, nk, ks);
  std::printf(bad ? "bad\\n" : "ok\\n");
  return bad;
}
`,
  );
  const exe = path.join(dir, 'copy');
  execFileSync('g++', ['-O2', '-std=c++17', `-I${NATIVE_DIR}`, '-o', exe, src]);
  assert.is(execFileSync(exe).toString().trim(), 'ok');
});

test.run();
