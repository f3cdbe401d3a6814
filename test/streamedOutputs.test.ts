import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
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
import { parseExternals } from '../core/frontend/externalsJson.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';
import { cpuScheduleKnobs } from '../plugins/codegen/cpuScheduleKnobs.js';
import { generateCpp } from '../plugins/codegen/generateCpp.js';
import { loadInputs, readCaseSpec } from './caseFolder.js';
import { CASES_DIR } from './conformanceKit.js';
import { EntryRunner } from './entryRunner.js';

/**
 * Issue 18 item 3: codegen.streamOutputs computes the outputs fused nests write whole and
 * never read a K column at a time into an L1 buffer, copied out with streaming stores
 * (plugins/codegen/streamedOutputs.ts, native/orch_stream.h). Only where the values pass
 * through changes: compiled results equal the interpreter's bit for bit, streams forced on
 * (ORCH_STREAM_STORES=1, any domain) with AVX-512, AVX2 and SSE2 copies, and forced off.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const t = suite('streamed outputs');

async function source(file: string, entry: string, codegen: Partial<ResolvedConfig['codegen']>, spec?: { externals?: unknown; compiletime?: Record<string, number | boolean> }): Promise<string> {
  const config = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-streamed-')) });
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [file], entry, externals: parseExternals(JSON.stringify(spec?.externals ?? {})), defines: spec?.compiletime ?? {}, mode: 'python' });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  return generateCpp(r.entries[0].program!, { ...config.codegen, lineDirectives: false, ...codegen }).source;
}

const hdiff = path.join(fixtures, 'hdiff.py');

t('hdiff: out (written whole, never read) goes through a column buffer copied out by orch::stream_column; q, coeff and the temporaries do not; off by default', async () => {
  const src = await source(hdiff, 'hdiff', { streamOutputs: true });
  assert.ok(src.includes('#include "orch_stream.h"'));
  assert.ok(src.includes('const bool stream_outputs = orch::stream_stores('), 'one decision per call');
  assert.ok(src.includes('if (stream_outputs && khi - klo <= ORCH_STREAM_LEVELS) {'));
  assert.equal([...src.matchAll(/alignas\(64\) double (l_sbuf_\w+)\[ORCH_STREAM_LEVELS\];/g)].map((m) => m[1]), ['l_sbuf_out']);
  // the shared K loop and the edge loop of out's nest each store into the buffer and copy it out
  assert.is(src.split('l_sbuf_out[k - klo] = (p_q[').length - 1, 2);
  assert.is(src.split('orch::stream_column(&p_out[i * s0_out + j * s1_out + k * s2_out], l_sbuf_out, khi - klo, s2_out);').length - 1, 2);
  assert.ok(src.includes('if (stream_outputs) orch::stream_fence();'), 'each tile fences its streams');
  // the plain path is still there: out stored in place
  assert.ok(src.includes('p_out[i * s0_out + j * s1_out + k * s2_out] = (p_q['));
  const plain = await source(hdiff, 'hdiff', {});
  for (const s of ['stream_outputs', 'l_sbuf_', 'stream_column']) assert.not.ok(plain.includes(s), s);
  // the else branch is the loop built without the option, line for line
  const at = src.indexOf('if (stream_outputs && khi - klo <= ORCH_STREAM_LEVELS) {');
  const elseAt = src.indexOf('} else {', src.lastIndexOf('orch::stream_column('));
  const fallback = src.slice(elseAt + '} else {'.length, src.indexOf('\n                    }\n', elseAt));
  const unindented = (x: string) => x.split('\n').map((l) => l.trim()).join('\n');
  assert.ok(at > 0 && fallback.length > 1000 && unindented(plain).includes(unindented(fallback).trim()), 'the fallback is the default fused loop');
  // unfused nests stream nothing
  assert.not.ok((await source(hdiff, 'hdiff', { streamOutputs: true, fuseNests: false })).includes('stream_outputs'));
});

t('ppm_advection streams its flux; the other bench fixtures write nothing that qualifies (in place, read back, sweeps, unfused) and generate the same code', async () => {
  const ppm = path.join(fixtures, 'ppm_advection.py');
  assert.equal([...(await source(ppm, 'ppm_advection', { streamOutputs: true })).matchAll(/alignas\(64\) double (l_sbuf_\w+)\[/g)].map((m) => m[1]), ['l_sbuf_flux']);
  for (const entry of ['pointwise_chain', 'deln_damping', 'dycore', 'vertical_solver']) {
    const file = path.join(fixtures, `${entry}.py`);
    assert.is(await source(file, entry, { streamOutputs: true }), await source(file, entry, {}), entry);
  }
});

t('orch tune tries streamOutputs', () => {
  const knob = cpuScheduleKnobs.find((k) => k.option === 'streamOutputs');
  assert.ok(knob, 'a knob');
  assert.equal(knob!.values({ base: { loopOrder: 'IJK', openmp: true, lineDirectives: true }, domain: [128, 128, 80] }), [false, true]);
});

const NATIVE = ['-march=native', '-ffp-contract=off'];
const STREAM = ['-DORCH_STREAM_STORES=1'];
const PLAIN = ['-DORCH_STREAM_STORES=0'];

const BENCH: [string, Record<string, number>][] = [
  ['hdiff', { dt: 0.01 }],
  ['deln_damping', { damp: 0.05 }],
  ['ppm_advection', { dt: 0.1 }],
  ['dycore', { dt: 0.1 }],
  ['pointwise_chain', { rate: 0.5 }],
];

t('bench fixtures with streamOutputs (streams forced; AVX-512/native, AVX2, SSE2; forced off; K-cut, tall and preset tiles) compiled bitwise equal to the interpreter', async () => {
  const cases: { codegen: Partial<ResolvedConfig['codegen']>; extraFlags: string[] }[] = [
    { codegen: { streamOutputs: true }, extraFlags: [...NATIVE, ...STREAM] },
    { codegen: { streamOutputs: true, tile: [3, 2, 4] }, extraFlags: [...NATIVE, ...STREAM] },
    { codegen: { streamOutputs: true, tile: [32, 32] }, extraFlags: ['-march=x86-64-v3', '-ffp-contract=off', ...STREAM] },
    { codegen: { streamOutputs: true, tile: [4, 32] }, extraFlags: STREAM },
    { codegen: { streamOutputs: true }, extraFlags: [...NATIVE, ...PLAIN] },
  ];
  for (const c of cases) {
    const runner = await EntryRunner.create(c);
    for (const [entry, scalars] of BENCH) {
      const file = path.join(fixtures, `${entry}.py`);
      const iface = (await runner.build(file, entry, 'python')).iface!;
      // K of 5 and 13 (no whole line in a column, lines shared by columns), 19x45: tile remainders
      for (const shape of [[19, 45, 5], [12, 13, 13]]) await runner.runAgreeing(file, entry, { fields: syntheticInputs(iface, shape, {}), scalars }, '{}', 0);
    }
  }
});

/** Conformance and language cases whose generated code the option changes. */
const caseDirs = [CASES_DIR, path.resolve(here, '../../fixtures/language')].flatMap((base) =>
  existsSync(base) ? readdirSync(base).sort().map((c) => path.join(base, c)).filter((d) => existsSync(path.join(d, 'case.json'))) : [],
);

t('every conformance and language case whose outputs stream: compiled bitwise equal to the interpreter (streams forced, 3x2x4 tiles)', async () => {
  const codegen = { streamOutputs: true, tile: [3, 2, 4] as [number, number, number] };
  const runner = await EntryRunner.create({ codegen, extraFlags: [...NATIVE, ...STREAM] });
  const preset = (await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-streamed-')) })).codegen;
  let streamed = 0;
  for (const dir of caseDirs) {
    const spec = readCaseSpec(dir);
    const file = path.join(dir, 'module.py');
    const externals = JSON.stringify(spec.externals ?? {});
    const defines = spec.compiletime ?? {};
    const py = await runner.build(file, spec.entry, 'python', externals, defines);
    assert.is(py.errors.length, 0, `${dir}: ${py.errors.map((d) => formatDiagnostic(d)).join('\n')}`);
    if (!generateCpp(py.program!, { ...preset, ...codegen, lineDirectives: false }).source.includes('orch::stream_column(')) continue;
    streamed++;
    await runner.runAgreeing(file, spec.entry, { fields: loadInputs(dir), scalars: spec.scalars ?? {}, origin: spec.origin, domain: spec.domain }, externals, 0, defines);
  }
  assert.ok(streamed >= 5, `only ${streamed} cases stream`);
});

function compileAndRun(name: string, code: string, flags: string[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `orch-${name}-`));
  const src = path.join(dir, `${name}.cpp`);
  writeFileSync(src, code);
  const exe = path.join(dir, name);
  execFileSync('g++', ['-O2', '-std=c++17', ...flags, `-I${NATIVE_DIR}`, '-o', exe, src]);
  return execFileSync(exe).toString().trim();
}

t('stream_column writes exactly the plain copy, at every alignment and column length, K-contiguous or strided, and nothing else', () => {
  const code = `#include "orch_stream.h"
#include <cstdio>
#include <cstdlib>
#include <vector>
int main() {
  int bad = 0, runs = 0;
  for (int off = 0; off < 8; ++off)
    for (int nk = 1; nk <= 27; ++nk)
      for (int s1 : {nk, nk + 3})
        for (int s2 : {1, 2}) {
          const int ncol = 5;
          std::vector<double> src(ncol * nk);
          for (size_t n = 0; n < src.size(); ++n) src[n] = 1.0 + n;
          double* mem = static_cast<double*>(std::aligned_alloc(64, 64 * 64 * 8));
          double* want = static_cast<double*>(std::aligned_alloc(64, 64 * 64 * 8));
          for (int n = 0; n < 64 * 64; ++n) mem[n] = want[n] = -1.0;
          for (int j = 0; j < ncol; ++j) {
            orch::stream_column(mem + off + j * s1 * s2, src.data() + j * nk, nk, s2);
            for (int k = 0; k < nk; ++k) want[off + j * s1 * s2 + k * s2] = src[j * nk + k];
          }
          orch::stream_fence();
          ++runs;
          for (int n = 0; n < 64 * 64; ++n) bad += mem[n] != want[n];
          std::free(mem);
          std::free(want);
        }
  std::printf("%d %d\\n", runs, bad);
}
`;
  for (const flags of [[], ['-march=x86-64-v3'], NATIVE]) assert.is(compileAndRun('stream-column', code, flags), '864 0', flags.join(' '));
});

t('orch::stream_stores: past ORCH_STREAM_MIN_POINTS a thread; ORCH_STREAM_STORES forces either path', () => {
  const code = `#include "orch_stream.h"
#include <cstdio>
int main() {
  const long long sizes[][2] = {{18 * 18 * 79, 1}, {24 * 24 * 72, 2}, {32 * 32 * 80, 1}, {32 * 32 * 80, 2}, {128 * 128 * 80, 2}, {128 * 128 * 80, 0}};
  for (auto& s : sizes) std::printf("%d", orch::stream_stores(s[0], static_cast<int>(s[1])) ? 1 : 0);
  std::printf("\\n");
}
`;
  assert.is(compileAndRun('stream-guard', code, []), '001011');
  assert.is(compileAndRun('stream-guard', code, STREAM), '111111');
  assert.is(compileAndRun('stream-guard', code, [...NATIVE, ...PLAIN]), '000000');
});

t.run();
