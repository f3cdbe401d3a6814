import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { compulsoryBytes, substepBytes } from './compulsoryTraffic.js';
import type { Program } from '../core/ir/types.js';
import type { MeasureRequest } from './measure.js';
import { tunedCell, tunedNote, tunedVsDefault, type TunedRow } from './tunedVsDefault.js';
import { triadPaired, type TriadPaired } from './triadPairs.js';

/**
 * `npm run bench`: how close the generated code gets to this machine's memory bandwidth,
 * and what orchestration buys. Every ratio is measured in this one run. Not part of CI.
 *
 *   node dist/bench/run.js [--json out.json] [--quick] [--fixtures hdiff,vertical_solver] (--only: the same)
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const args = process.argv.slice(2);
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const quick = args.includes('--quick');
// only these fixtures' rows (a check on a tiny domain; the full run measures every fixture)
const onlyFlag = args.includes('--fixtures') ? '--fixtures' : args.includes('--only') ? '--only' : undefined;
const only = onlyFlag ? new Set(args[args.indexOf(onlyFlag) + 1].split(',')) : undefined;
const work = mkdtempSync(path.join(os.tmpdir(), 'orch-bench-'));
// the triad is built with -march=native, so the fixtures are too (this machine's own preset)
const PRESET = process.env.ORCH_BENCH_PRESET ?? 'cpu-native';

interface Fixture {
  name: string;
  kind: 'pointwise/fused' | 'horizontal' | 'vertical solver' | 'regions' | 'program';
  /** the fraction of triad to reach at 2 threads, and at 1 where it differs (issue 18) */
  target: number;
  target1t?: number;
  scalars: Record<string, number>;
}

/**
 * Fixtures `orch tune` tunes for the 'tuned vs default' column (its budget per fixture in seconds);
 * ppm_advection for the schedules the presets leave off for it (fuseRegions, vectorWidth, JIK).
 */
const TUNED = new Set(['hdiff', 'vertical_solver', 'pointwise_chain', 'deln_damping', 'dycore', 'ppm_advection']);
const TUNE_BUDGET_S = quick ? 30 : 180;

const FIXTURES: Fixture[] = [
  { name: 'pointwise_chain', kind: 'pointwise/fused', target: 0.8, scalars: { rate: 0.5 } },
  { name: 'hdiff', kind: 'horizontal', target: 0.6, target1t: 0.4, scalars: { dt: 0.01 } },
  { name: 'vertical_solver', kind: 'vertical solver', target: 0.7, scalars: { dt: 0.1 } },
  { name: 'ppm_advection', kind: 'regions', target: 0.45, scalars: { dt: 0.1 } },
  { name: 'deln_damping', kind: 'regions', target: 0.45, scalars: { damp: 0.05 } },
  { name: 'dycore', kind: 'program', target: 0.45, scalars: { dt: 0.1 } },
];

const SIZES: [number, number, number][] = quick ? [[12, 12, 79], [64, 64, 80]] : [[12, 12, 79], [24, 24, 72], [128, 128, 80]];
const HALO = 3;
// triad/fixture pairs per thread count (bench/triadPairs.ts)
const TRIAD_ROUNDS = quick ? 1 : 3;
const LARGE = SIZES[SIZES.length - 1];

function log(s: string): void {
  process.stderr.write(`${s}\n`);
}

function gxx(out: string, src: string, extra: string[] = []): void {
  execFileSync('g++', ['-O3', '-march=native', '-fopenmp', '-std=c++17', '-o', out, src, `-I${path.join(repo, 'native')}`, ...extra], { stdio: 'inherit' });
}

function triad(threads: number): number {
  const exe = path.join(work, 'stream_triad');
  const out = execFileSync(exe, [String(quick ? 1 << 23 : 1 << 25), '12'], { env: { ...process.env, OMP_NUM_THREADS: String(threads), OMP_PROC_BIND: 'true' } }).toString();
  return (JSON.parse(out) as { gbps: number }).gbps;
}

/**
 * Orchestrated over stencil-by-stencil from Python (issue 18 item 5): the program's Python
 * function run as Python, each stencil its own library called through the orch package,
 * against the program as one library, both through the orch package in one process (the
 * package's default preset for both, not PRESET).
 */
function pythonStencilByStencil(file: string, entry: string, shape: number[], scalars: Record<string, number>, threads: number): number {
  const out = execFileSync('python3', [path.join(repo, 'bench/python_stencil_by_stencil.py'), file, entry, ...shape.map(String), JSON.stringify(scalars), quick ? '0.2' : '1.0'], {
    cwd: work,
    env: { ...process.env, PYTHONPATH: path.join(repo, 'python'), GT_CACHE_ROOT: work, ORCH_MODE: 'build-and-run', OMP_NUM_THREADS: String(threads), OMP_PROC_BIND: 'true' },
  }).toString();
  // the median of paired rounds' ratios (the script interleaves the two ways)
  return (JSON.parse(out.trim().split('\n').pop()!) as { ratio: number }).ratio;
}

function measure(req: Omit<MeasureRequest, 'cacheRoot' | 'preset' | 'minSeconds'>, threads: number): number {
  const full: MeasureRequest = { ...req, cacheRoot: work, preset: PRESET, minSeconds: quick ? 0.1 : 0.3 };
  const out = execFileSync(process.execPath, [path.join(here, 'measure.js'), JSON.stringify(full)], {
    env: { ...process.env, OMP_NUM_THREADS: String(threads), OMP_PROC_BIND: 'true' },
  }).toString();
  return (JSON.parse(out.trim().split('\n').pop()!) as { median_s: number }).median_s;
}

/** The fixture's IR with its program loops kept (codegen.unrollLoops off), not compiled. */
async function loopsAsWritten(config: Awaited<ReturnType<typeof resolveConfig>>, file: string, entry: string): Promise<Program> {
  const compiler = new Compiler({ ...config, codegen: { ...config.codegen, unrollLoops: false } }, { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined });
  const built = await compiler.build({ modules: [file], entry, externals: {}, defines: {}, mode: 'python' });
  if (built.errors.length) throw new Error(built.errors.map((d) => formatDiagnostic(d)).join('\n'));
  return built.entries[0].program!;
}

async function main(): Promise<void> {
  log(`orch bench (preset ${PRESET}${quick ? ', quick' : ''}) in ${work}`);
  gxx(path.join(work, 'stream_triad'), path.join(repo, 'native/stream_triad.cpp'));
  const triadGbps = { 1: triad(1), 2: triad(2) } as Record<number, number>;
  log(`STREAM triad: ${triadGbps[1].toFixed(1)} GB/s (1 thread), ${triadGbps[2].toFixed(1)} GB/s (2 threads)`);

  const config = await resolveConfig({ configFile: null, preset: PRESET });
  config.cacheRoot = work;
  const rows = [];
  for (const f of FIXTURES) {
    if (only && !only.has(f.name)) continue;
    const file = path.join(repo, 'fixtures/bench', `${f.name}.py`);
    const compiler = new Compiler(config, { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined });
    const built = await compiler.build({ modules: [file], entry: f.name, externals: {}, defines: {}, mode: 'build' });
    if (built.errors.length) throw new Error(built.errors.map((d) => formatDiagnostic(d)).join('\n'));
    const e = built.entries[0];
    const t = e.timings;
    const pipeline = ['parse', 'simplify1', 'regionExpansion', 'libraryExpansion', 'simplify2', 'pooling', 'debugInsertion', 'codegen'].reduce((a, k) => a + (t[k] ?? 0), 0);
    const gxxTime = t.compile ?? NaN;
    const bytes = compulsoryBytes(e.program!, LARGE);
    // substeps as the program writes them: unrollLoops may have fused them into one launch
    const perSubstep = substepBytes(await loopsAsWritten(config, file, f.name), LARGE);
    const shapeOf = (s: number[]) => [s[0] + 2 * HALO, s[1] + 2 * HALO, s[2]];
    const bw: Record<number, number> = {};
    const secs: Record<number, number> = {};
    const paired: Record<number, TriadPaired> = {};
    for (const threads of [1, 2]) {
      // each round a triad right before the fixture: the fraction compares one moment's machine
      paired[threads] = triadPaired(bytes, TRIAD_ROUNDS, () => triad(threads), () => measure({ file, entry: f.name, mode: 'orchestrated', shape: shapeOf(LARGE), scalars: f.scalars }, threads));
      secs[threads] = paired[threads].secs;
      bw[threads] = paired[threads].gbps;
    }
    // tuned vs default (issue 18 item 4): the tuned schedule timed the way the default was
    let tune: TunedRow | undefined;
    if (TUNED.has(f.name)) {
      try {
        // orch tune at the large size with 2 threads, as the column is measured
        const tuneArgs = [path.join(here, '../bin/orch.js'), 'tune', `${file}:${f.name}`, '--domain', LARGE.join(','), '--halo', String(HALO), '--scalars', JSON.stringify(f.scalars), '--preset', PRESET, '--budget-s', String(TUNE_BUDGET_S), '--runs', quick ? '5' : '15', '--json'];
        const env = { ...process.env, GT_CACHE_ROOT: work, OMP_NUM_THREADS: '2', OMP_PROC_BIND: 'true' };
        tune = tunedVsDefault(tuneArgs, env, work, (codegen) => measure({ file, entry: f.name, mode: 'orchestrated', shape: shapeOf(LARGE), scalars: f.scalars, codegen }, 2), quick ? 2 : 4);
      } catch (err) {
        log(`${f.name}: not tuned: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    const speedups: Record<string, number> = {};
    for (const size of SIZES) {
      const orch = measure({ file, entry: f.name, mode: 'orchestrated', shape: shapeOf(size), scalars: f.scalars }, 2);
      const sbs = measure({ file, entry: f.name, mode: 'stencil-by-stencil', shape: shapeOf(size), scalars: f.scalars }, 2);
      speedups[size.join('x')] = sbs / orch;
    }
    // the Python host's alternative, where orchestration is meant to pay (target >= 5x)
    const pySbs: Record<number, number> = { 1: NaN, 2: NaN };
    if (f.kind === 'regions' || f.kind === 'program') {
      try {
        for (const threads of [1, 2]) pySbs[threads] = pythonStencilByStencil(file, f.name, shapeOf(SIZES[0]), f.scalars, threads);
      } catch (err) {
        log(`${f.name}: Python stencil-by-stencil not measured: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    const row = {
      fixture: f.name,
      kind: f.kind,
      stencils: Object.keys(e.program!.stencils).length,
      bytes_per_call: bytes,
      gbps_1t: bw[1],
      gbps_2t: bw[2],
      frac_triad_1t: paired[1].frac,
      frac_triad_2t: paired[2].frac,
      triad_gbps_1t: paired[1].triadGbps,
      triad_gbps_2t: paired[2].triadGbps,
      rounds_1t: paired[1].rounds,
      rounds_2t: paired[2].rounds,
      // time per call over the time the per-substep compulsory bytes take at triad (target <= 1.5)
      substep_bytes_per_call: perSubstep ?? null,
      over_substep_1t: perSubstep === undefined ? null : bytes / (paired[1].frac * perSubstep),
      over_substep_2t: perSubstep === undefined ? null : bytes / (paired[2].frac * perSubstep),
      target: f.target,
      target_1t: f.target1t ?? f.target,
      orchestrated_speedup: speedups,
      tuned: tune,
      python_sbs_speedup: pySbs,
      pipeline_s: pipeline,
      gxx_s: gxxTime,
      pipeline_over_gxx: pipeline / gxxTime,
    };
    rows.push(row);
    log(`${f.name}: ${row.frac_triad_1t.toFixed(2)} / ${row.frac_triad_2t.toFixed(2)} of triad; speedups ${Object.entries(speedups).map(([k, v]) => `${k} ${v.toFixed(1)}x`).join(', ')}`);
  }

  // per-call overhead from C and from Python
  const ovCompiler = new Compiler(config, { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined });
  const ovFile = path.join(repo, 'fixtures/bench/call_overhead.py');
  const overhead: Record<string, number> = {};
  gxx(path.join(work, 'call_overhead'), path.join(repo, 'native/call_overhead.cpp'), ['-ldl']);
  for (const [entry, nf] of only ? [] : ([['one_field', 1], ['sixteen_fields', 16]] as const)) {
    const r = await ovCompiler.build({ modules: [ovFile], entry, externals: {}, defines: {}, mode: 'build' });
    const lib = r.entries[0];
    const c = JSON.parse(execFileSync(path.join(work, 'call_overhead'), [lib.library!, lib.symbol!, String(nf)], { env: { ...process.env, OMP_NUM_THREADS: '1' } }).toString());
    overhead[`c_${nf}`] = c.ns_per_call;
    try {
      const p = JSON.parse(execFileSync('python3', [path.join(repo, 'bench/python_call_overhead.py'), lib.library!, lib.symbol!, String(nf), quick ? '50000' : '200000'], { env: { ...process.env, OMP_NUM_THREADS: '1' } }).toString());
      overhead[`python_${nf}`] = p.ns_per_call;
    } catch (err) {
      log(`python overhead not measured: ${(err as Error).message.split('\n')[0]}`);
    }
  }

  // watch mode (issue 7): a 20-module project, a one-line edit and a save with no change
  let watch = '';
  if (only) watch = 'watch benchmark not run (--fixtures)';
  else try {
    watch = execFileSync(process.execPath, [path.join(here, 'watch.js'), '--repeat', quick ? '3' : '5'], { env: process.env }).toString().trim();
  } catch (err) {
    watch = `watch benchmark failed: ${(err as Error).message.split('\n')[0]}`;
  }

  const pad = (s: string, n: number) => s.padEnd(n);
  const lines = [
    '',
    `STREAM triad: ${triadGbps[1].toFixed(2)} GB/s at 1 thread, ${triadGbps[2].toFixed(2)} GB/s at 2 threads (preset ${PRESET})`,
    '',
    `${pad('fixture', 17)}${pad('kind', 17)}${pad('GB/s 1t', 9)}${pad('triad 1t', 10)}${pad('GB/s 2t', 9)}${pad('triad 2t', 10)}${pad('triad GB/s', 12)}${pad('target', 10)}${pad('tuned/def 2t', 18)}${pad('x substep 1t/2t', 26)}${SIZES.map((s) => pad(`orch/sbs ${s.join('x')}`, 20)).join('')}${pad(`orch/py-sbs ${SIZES[0].join('x')} 1t/2t`, 28)}${pad('pipeline s', 12)}${pad('g++ s', 8)}pipe/g++`,
    ...rows.map(
      (r) =>
        `${pad(r.fixture, 17)}${pad(r.kind, 17)}${pad(r.gbps_1t.toFixed(2), 9)}${pad(r.frac_triad_1t.toFixed(2), 10)}${pad(r.gbps_2t.toFixed(2), 9)}${pad(r.frac_triad_2t.toFixed(2), 10)}${pad(`${r.triad_gbps_1t.toFixed(1)}/${r.triad_gbps_2t.toFixed(1)}`, 12)}${pad(r.target_1t === r.target ? `>=${r.target}` : `>=${r.target_1t}/${r.target}`, 10)}${pad(tunedCell(r.tuned), 18)}${pad(r.kind === 'program' && r.over_substep_1t !== null && r.over_substep_2t !== null ? `${r.over_substep_1t.toFixed(2)}x/${r.over_substep_2t.toFixed(2)}x (<=1.5x)` : '-', 26)}${Object.values(r.orchestrated_speedup).map((v) => pad(`${v.toFixed(2)}x`, 20)).join('')}${pad(Number.isNaN(r.python_sbs_speedup[1]) ? '-' : `${r.python_sbs_speedup[1].toFixed(2)}x/${r.python_sbs_speedup[2].toFixed(2)}x (>=5x)`, 28)}${pad(r.pipeline_s.toFixed(3), 12)}${pad(r.gxx_s.toFixed(3), 8)}${r.pipeline_over_gxx.toFixed(3)}`,
    ),
    '',
    only ? 'per-call overhead not measured (--fixtures)' : `per-call overhead: C ${overhead.c_1?.toFixed(0)} ns (1 field), ${overhead.c_16?.toFixed(0)} ns (16 fields); Python (ctypes, bound once) ${overhead.python_1 !== undefined ? (overhead.python_1 / 1000).toFixed(2) : '-'} us (1 field), ${overhead.python_16 !== undefined ? (overhead.python_16 / 1000).toFixed(2) : '-'} us (16 fields)`,
    '',
    watch,
    '',
    `tuned/def 2t: the default preset's time over the schedule orch tune chose for ${LARGE.join('x')} at 2 threads (budget ${TUNE_BUDGET_S} s, every candidate bitwise equal to the interpreter), the median of ${quick ? 2 : 4} rounds that measure both in turn; in brackets, the speedup orch tune's own confirmation measured (alternating blocks; 'rej': below the noise, so the default stays): ${rows.filter((r) => r.tuned).map((r) => tunedNote(r.fixture, r.tuned!)).join(', ') || 'none'}`,
    'orch/sbs: stencil by stencil from a Node host (bench/stencilByStencil.ts); orch/py-sbs: from Python through the orch package, each stencil its own library (bench/python_stencil_by_stencil.py)',
    `triad 1t/2t: the median over ${TRIAD_ROUNDS} rounds of the row's effective bandwidth over a STREAM triad taken right before it in the same round (triad GB/s: those triads' median; the line above is the run's first triad)`,
    `effective bandwidth counts compulsory bytes (each argument field read once and written once over the ${LARGE.join('x')} interior) / median time`,
    `x substep (program rows): median time per call / the time the per-substep compulsory bytes take at the triad of its round, where every iteration of a program loop (a substep, trip counts from the IR) reads once and writes once each argument it touches, temporaries not counted (${rows.filter((r) => r.kind === 'program').map((r) => `${r.fixture} ${r.substep_bytes_per_call === null ? 'unknown trip count' : `${(r.substep_bytes_per_call / 1e6).toFixed(1)} MB/call against ${(r.bytes_per_call / 1e6).toFixed(1)} MB one pass`}`).join(', ') || 'none'}); 1.00x is the floor without fusing substeps in time`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ preset: PRESET, triad_gbps: triadGbps, sizes: SIZES, fixtures: rows, call_overhead_ns: overhead, watch }, null, 1));
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
