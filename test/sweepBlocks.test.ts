import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NATIVE_DIR } from '../core/cache/hashing.js';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';
import { generateCpp } from '../plugins/codegen/generateCpp.js';
import { cpuScheduleKnobs } from '../plugins/codegen/cpuScheduleKnobs.js';
import { loadInputs, readCaseSpec } from './caseFolder.js';
import { compareArrays } from '../core/runtime/compareArrays.js';
import { EntryRunner } from './entryRunner.js';

/**
 * codegen.sweepBlock (plugins/codegen/sweepBlocks.ts, native/orch_stage.h): tiles of
 * FORWARD/BACKWARD launches as staged blocks of a row's columns, the next block prefetched,
 * outputs streamed back. Only copies and hints change, so the compiled results must equal
 * the interpreter's bit for bit, on edge blocks (the domain no multiple of the block), on
 * K extents that are no multiple of the 8x8 transposes, and with the AVX-512 copies (the
 * build machine's own instruction set, where it has them).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const solver = path.resolve(here, '../../fixtures/bench/vertical_solver.py');

async function solverSource(codegen: Record<string, unknown>): Promise<string> {
  const config = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-blocks-')) });
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [solver], entry: 'vertical_solver', externals: {}, defines: {}, mode: 'python' });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  return generateCpp(r.entries[0].program!, { ...config.codegen, ...codegen }).source;
}

test('sweepBlock 32: one row of 32 columns per tile, kdiff and q prefetched a few lines a level, q_new streamed back in one copy of both writers, then a fence', async () => {
  const src = await solverSource({ sweepBlock: 32 });
  assert.ok(src.includes('const int64_t tsj = std::min<int64_t>(32, std::max<int64_t>(1, dom1)), tsi = 1;'));
  assert.equal([...src.matchAll(/orch::stage_prefetch (l_stage_\w+)_pf = /g)].map((m) => m[1]), ['l_stage_kdiff', 'l_stage_q']);
  // every level of the five sweep nests advances both cursors, in each of a sweep's two loops (whole blocks, the rest)
  assert.is([...src.matchAll(/l_stage_kdiff_pf\.next\(\);\n\s*l_stage_q_pf\.next\(\);/g)].length, 10);
  // the two writers of q_new (level nz-1, levels 0..nz-2): one copy of their union where they meet, else each
  assert.is([...src.matchAll(/orch::stage_columns_back<double>\(l_stage_q_new_g/g)].length, 3);
  assert.ok(src.includes('std::min<int64_t>(kclo_3, kclo_4)'));
  // q_new streamed back while its last sweep (BACKWARD, levels 0..nz-2) finishes it, in that sweep's whole-block loop; the copy back skips those levels
  assert.ok(src.includes('orch::stage_stream l_stage_q_new_ss(') && src.includes(', kclo_4, kchi_4);'));
  assert.is(src.split('l_stage_q_new_ss.done(k + 1);').length - 1, 1);
  assert.is(src.split('l_stage_q_new_ss.done(klo);').length - 1, 1);
  assert.is(src.split(', l_stage_q_new_ss.lo - (').length - 1, 3);
  // one fence a thread, after its last tile, then the barrier the tile loop no longer has
  assert.is(src.split('orch::stage_fence();').length - 1, 1);
  assert.ok(src.includes('#pragma omp for collapse(3) schedule(static) nowait'));
  assert.match(src, /\}\n\s*orch::stage_fence\(\);\n#pragma omp barrier\n/);
  // whole blocks: the strides compared once a tile, then constants in the rows of whole blocks
  assert.ok(src.includes('const bool whole_block = s0_kdiff == 32 && s2_kdiff == 32 && s0_q == 32 && s2_q == 32 && s0_q_new == 32 && s2_q_new == 32 && '));
  assert.is([...src.matchAll(/if \(jhi0 - jlo0 == 32 && whole_block\) \{\n\s*\[\[maybe_unused\]\] const int64_t s0_/g)].length, 5);
  // and each sweep once more for whole blocks, decided once a loop: rows of one loop of 32, the strides constants
  const wholeLoops = [...src.matchAll(/if \(whole_block && ihi0 - ilo0 == 1 && jhi0 - jlo0 == 32\) \{\n\s*\[\[maybe_unused\]\] const int64_t s0_/g)];
  assert.is(wholeLoops.length, 5);
  assert.is([...src.matchAll(/for \(int64_t i = ilo0; i < ilo0 \+ 1; \+\+i\) \{\n(#pragma GCC \w+( \d+)?\n)+\s*for \(int64_t j = jlo0; j < jlo0 \+ 32; \+\+j\) \{/g)].length, 5);
  // stageSweeps alone: the old staged tile, no blocks
  const staged = await solverSource({ stageSweeps: true, sweepBlock: false });
  for (const s of ['stage_prefetch', 'stage_columns_back', 'stage_fence', 'tsi = 1;']) assert.not.ok(staged.includes(s), s);
  const plain = await solverSource({ sweepBlock: false });
  assert.not.ok(plain.includes('orch::stage_'), 'no blocks without sweepBlock');
  // the CPU presets block sweeps by default, each call choosing blocks or the plain tiles
  const byDefault = await solverSource({});
  assert.ok(byDefault.includes('if (orch::sweep_blocks('), 'the preset default blocks sweeps, guarded per call');
  assert.ok(byDefault.includes('tsi = 1;'), 'of 32 columns');
});

/** A launch's two paths: the text of the `if (orch::sweep_blocks(...))` branch and of its `else`, each line unindented. */
function guardedPaths(src: string): { blocks: string; fallback: string } {
  const lines = src.split('\n');
  const at = lines.findIndex((l) => l.includes('if (orch::sweep_blocks(dom0 * dom1 * dom2, orch::max_threads())) {'));
  assert.ok(at >= 0, 'the launch chooses its path');
  const indent = lines[at].length - lines[at].trimStart().length;
  const elseAt = lines.findIndex((l, n) => n > at && l === `${' '.repeat(indent)}} else {`);
  const end = lines.findIndex((l, n) => n > elseAt && l === `${' '.repeat(indent)}}`);
  const text = (from: number, to: number) => lines.slice(from, to).map((l) => l.trim()).join('\n');
  return { blocks: text(at + 1, elseAt), fallback: text(elseAt + 1, end) };
}

test('sweepBlock: the launch runs its blocks only where orch::sweep_blocks says, else exactly the launch built without sweepBlock', async () => {
  const src = await solverSource({ sweepBlock: 32, lineDirectives: false });
  const plain = await solverSource({ lineDirectives: false });
  const { blocks, fallback } = guardedPaths(src);
  assert.ok(blocks.includes('orch::stage_prefetch') && blocks.includes('tsi = 1;'), 'blocks in the guarded branch');
  assert.not.ok(fallback.includes('orch::stage_'), 'no staging in the fallback');
  // the fallback is the default launch, line for line
  const unindented = plain.split('\n').map((l) => l.trim()).join('\n');
  assert.ok(fallback.length > 1000 && unindented.includes(fallback), 'the fallback is the launch built without sweepBlock');
  // one choice per launch: the launch's loops are not generated a third time
  assert.is(src.split('if (st->tiles.prepare(').length - 1, 2);
});

test('orch tune tries sweepBlock 16, 32 and 64 (blocks narrower than twice the domain), and false where the config sets blocks', () => {
  const knob = cpuScheduleKnobs.find((k) => k.option === 'sweepBlock')!;
  const base = { loopOrder: 'IJK', openmp: true, lineDirectives: true };
  assert.equal(knob.values({ base, domain: [128, 128, 80] }), [16, 32, 64]);
  assert.equal(knob.values({ base, domain: [12, 12, 79] }), [16]);
  assert.equal(knob.values({ base: { ...base, sweepBlock: 32 }, domain: [128, 128, 80] }), [false, 16, 32, 64]);
});

/** As the cpu-native preset: the machine's own instructions, and no FMA contraction (which the interpreter does not do). */
const NATIVE = ['-march=native', '-ffp-contract=off'];

/** The guard of native/orch_stage.h forced: the blocks whatever the instruction set and domain, or the fallback. */
const BLOCKS = ['-DORCH_SWEEP_BLOCKS=1'];
const FALLBACK = ['-DORCH_SWEEP_BLOCKS=0'];

test('the Thomas solver and column recurrences compiled with sweepBlock 8, 16 and 32 (portable and -march=native, blocks and fallback forced) equal the interpreter bit for bit', async () => {
  const cases: { codegen: { sweepBlock: number }; extraFlags?: string[] }[] = [
    // the portable 4x4 transposes, plain stores
    { codegen: { sweepBlock: 8 }, extraFlags: BLOCKS },
    { codegen: { sweepBlock: 16 }, extraFlags: [...NATIVE, ...BLOCKS] },
    { codegen: { sweepBlock: 32 }, extraFlags: [...NATIVE, ...BLOCKS] },
    { codegen: { sweepBlock: 32 }, extraFlags: [...NATIVE, ...FALLBACK] },
  ];
  const dir = path.resolve(here, '../../fixtures/language/column-recurrences');
  const spec = readCaseSpec(dir);
  for (const c of cases) {
    const runner = await EntryRunner.create(c);
    await runner.runAgreeing(path.join(dir, 'module.py'), spec.entry, { fields: loadInputs(dir), scalars: spec.scalars ?? {}, origin: spec.origin, domain: spec.domain }, '{}', 0);
    const py = await runner.build(solver, 'vertical_solver', 'python');
    // J of 39 and 35 points: blocks with a wider last one; K of 13 (no whole 8-level block at
    // the end, column starts not whole lines apart: no streaming) and 16 (streamed); 32x64x16
    // points: enough for the tiles to be shared by threads (ORCH_OMP_MIN_POINTS)
    for (const shape of [
      [11, 45, 13],
      [9, 41, 16],
      [38, 70, 16],
    ]) {
      const fields = syntheticInputs(py.iface!, shape, {});
      await runner.runAgreeing(solver, 'vertical_solver', { fields, scalars: { dt: 0.1 } }, '{}', 0);
    }
  }
});

test('every language fixture with FORWARD/BACKWARD loops, compiled with sweepBlock 8 (-march=native): the blocks forced equal the fallback forced bit for bit, and the interpreter within the case tolerance', async () => {
  // At the fixtures' small domains the guard would run the fallback: forced, every launch of
  // theirs whose tiles are blocks runs them (regions, variable K, while loops ...). The two paths
  // must agree exactly; the interpreter only within the case's tolerance, since exp and log
  // (saturation-tree) round differently in JavaScript and in libm, whichever path runs.
  const root = path.resolve(here, '../../fixtures/language');
  const dirs = readdirSync(root)
    .sort()
    .map((c) => path.join(root, c))
    .filter((d) => existsSync(path.join(d, 'case.json')) && /\b(FORWARD|BACKWARD)\b/.test(readFileSync(path.join(d, 'module.py'), 'utf8')));
  assert.ok(dirs.length >= 10, `${dirs.length} fixtures`);
  const blocks = await EntryRunner.create({ codegen: { sweepBlock: 8 }, extraFlags: [...NATIVE, ...BLOCKS] });
  const fallback = await EntryRunner.create({ codegen: { sweepBlock: 8 }, extraFlags: [...NATIVE, ...FALLBACK] });
  for (const dir of dirs) {
    const spec = readCaseSpec(dir);
    const run = (r: EntryRunner) =>
      r.runBoth(path.join(dir, 'module.py'), spec.entry, { fields: loadInputs(dir), scalars: spec.scalars ?? {}, origin: spec.origin, domain: spec.domain }, JSON.stringify(spec.externals ?? {}), spec.compiletime ?? {});
    const [a, b] = [await run(blocks), await run(fallback)];
    if (!('fields' in a.compiled) || !('fields' in b.compiled) || !('fields' in a.interpreted)) {
      assert.unreachable(`${path.basename(dir)}: ${JSON.stringify([a.compiled, b.compiled, a.interpreted].map((o) => ('error' in o ? o.error.message : 'ok')))}`);
      return;
    }
    const paths = compareArrays(b.compiled.fields, a.compiled.fields);
    assert.is(paths.maxAbs, 0, `${path.basename(dir)}: blocks vs fallback differ in ${paths.worst}`);
    const oracle = compareArrays(a.interpreted.fields, a.compiled.fields);
    const rtol = spec.rtol ?? 1e-12;
    assert.ok(oracle.maxRel <= rtol || oracle.maxAbs <= (spec.atol ?? 0), `${path.basename(dir)}: vs the interpreter ${oracle.maxRel} in ${oracle.worst}`);
  }
});

test('orch::sweep_blocks: blocks only with AVX-512 and past ORCH_SWEEP_BLOCK_MIN_POINTS a thread; ORCH_SWEEP_BLOCKS forces either path', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-sweep-guard-'));
  const src = path.join(dir, 'guard.cpp');
  // the bench's sizes at 1 and 2 threads: 24x24x72 (41472 points) in cache, 32x32x80 (81920) past it at 1 thread, not at 2
  writeFileSync(
    src,
    `#include "orch_stage.h"
#include <cstdio>
int main() {
  const long long sizes[][2] = {{12 * 12 * 79, 1}, {24 * 24 * 72, 1}, {32 * 32 * 80, 1}, {32 * 32 * 80, 2}, {128 * 128 * 80, 2}, {128 * 128 * 80, 0}};
  for (auto& s : sizes) std::printf("%d", orch::sweep_blocks(s[0], static_cast<int>(s[1])) ? 1 : 0);
#ifdef __AVX512F__
  std::printf(" avx512\\n");
#else
  std::printf(" portable\\n");
#endif
}
`,
  );
  const run = (flags: string[]) => {
    const exe = path.join(dir, 'guard');
    execFileSync('g++', ['-O2', '-std=c++17', ...flags, `-I${NATIVE_DIR}`, '-o', exe, src]);
    return execFileSync(exe).toString().trim();
  };
  assert.is(run([]), '000000 portable');
  assert.is(run(['-march=x86-64-v3']), '000000 portable', 'AVX2: no blocks');
  const native = run(NATIVE);
  assert.is(native, native.endsWith('avx512') ? '001011 avx512' : '000000 portable');
  assert.is(run(['-mavx512f', '-DORCH_SWEEP_BLOCK_MIN_POINTS=1']), '111111 avx512');
  assert.is(run(BLOCKS), '111111 portable');
  assert.is(run([...NATIVE, ...FALLBACK]).slice(0, 6), '000000');
});

test('stage_columns_back streams exactly what stage_columns copies back, at every alignment of the box, after a sweep streamed some levels (stage_stream); stage_prefetch reads nothing', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-stage-back-'));
  const src = path.join(dir, 'back.cpp');
  writeFileSync(
    src,
    `#include "orch_stage.h"
#include <cstdio>
#include <vector>
static long streamed = 0;
// a box of nk levels from level k0 of columns of nk + kpad levels, off elements into the buffer (offsets 0-7 meet every alignment to a line);
// levels klo..khi - 1 of it streamed back by a sweep first (stage_stream; its levels numbered from 5 at the box's first)
int check(int64_t ni, int64_t nj, int64_t nk, int64_t kpad, int64_t k0, int64_t off, int64_t klo, int64_t khi) {
  const int64_t NJ = nj + 3, NK = nk + kpad, s1 = NK, s0 = NJ * NK;
  std::vector<double> f((ni + 1) * s0 + 16), back((ni + 1) * s0 + 16, -1.0);
  for (size_t p = 0; p < f.size(); ++p) f[p] = 0.5 + p;
  const int64_t sk = orch::stage_plane(ni * nj);
  std::vector<double> st(sk * nk, -7.0);
  double* box = f.data() + off + 1 * s0 + 2 * s1 + k0;
  // a hint over the box and far past the array's end: no fault, no value changed
  orch::stage_prefetch pf(reinterpret_cast<uintptr_t>(box), ni + 4, s0 * 8, nj * s1 * 8, 3);
  for (int n = 0; n < 1000; ++n) pf.next();
  orch::stage_columns<double>(true, box, s0, s1, 1, st.data(), sk, nj, ni, nj, nk);
  double* bbox = back.data() + off + 1 * s0 + 2 * s1 + k0;
  orch::stage_stream ss(bbox, s0, s1, 1, st.data(), sk, ni, nj, 5, 5 + klo, 5 + khi);
  for (int64_t k = 5 + khi; k >= 5 + klo; --k) ss.done(k);
  streamed += ss.hi - ss.lo;
  orch::stage_columns_back<double>(bbox, s0, s1, 1, st.data(), sk, nj, ni, nj, nk, ss.lo - 5, ss.hi - 5);
  orch::stage_fence();
  for (size_t p = 0; p < back.size(); ++p) {
    const int64_t q = (int64_t)p - off, i = q / s0, j = q % s0 / s1, k = q % s1;
    const bool inside = q >= 0 && i >= 1 && i < 1 + ni && j >= 2 && j < 2 + nj && k >= k0 && k < k0 + nk;
    if (back[p] != (inside ? f[p] : -1.0)) { std::printf("%lld %lld %lld %lld %lld %lld %lld %lld at %lld\\n", (long long)ni, (long long)nj, (long long)nk, (long long)kpad, (long long)k0, (long long)off, (long long)klo, (long long)khi, (long long)p); return 1; }
  }
  return 0;
}
int main() {
  int bad = 0;
  // boxes of whole columns (kpad 0: a column's end shares a line with the next one's start) and of part columns
  for (int64_t ni : {1, 3}) for (int64_t nj : {1, 7, 8, 17, 32}) for (int64_t nk : {1, 6, 7, 8, 15, 16, 79, 80}) for (int64_t kpad : {0, 1, 2, 9})
    for (int64_t k0 = 0; k0 <= (kpad ? 1 : 0); ++k0) for (int64_t off = 0; off < 8; ++off)
      for (int64_t part : {0, 1, 2}) bad |= check(ni, nj, nk, kpad, k0, off, part == 1 ? 1 : part == 2 ? nk / 2 : 0, part == 1 ? nk - 1 : nk);
#ifdef __AVX512F__
  if (streamed == 0) bad = 1;  // the sweeps' streams ran (one row of 8-column groups)
#endif
  std::printf(bad ? "bad\\n" : "ok\\n");
  return bad;
}
`,
  );
  // portable (4x4 transposes, plain stores) and the machine's own (8x8 and streaming with AVX-512)
  for (const flags of [[], NATIVE]) {
    const exe = path.join(dir, `back${flags.length}`);
    execFileSync('g++', ['-O2', '-std=c++17', ...flags, `-I${NATIVE_DIR}`, '-o', exe, src]);
    assert.is(execFileSync(exe).toString().trim(), 'ok', flags.join(' '));
  }
});

test.run();
