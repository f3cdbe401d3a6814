import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import { codePaths, edgesOf, parseLayout, type CodePath, type LayoutTarget } from '../core/layout/RankLayout.js';
import { allocate, type NDArray } from '../core/runtime/ndarray.js';
import { NativeLibrary } from '../core/runtime/NativeLibrary.js';
import { readNpy } from '../core/runtime/npy.js';
import { compilerCache } from './compilerCache.js';

/**
 * Rank layouts end to end: region externals per code path (fixtures/layouts/tile_edges.py
 * marks the tile edges a rank touches) against hand-computed masks, interpreted and
 * compiled; `orch build --layout` building the distinct code paths; `orch run --layout
 * --rank` (and the Python package) resolving a rank to its code path; build info.
 * Each test builds the same code paths into a cache of its own, through one ccache
 * (test/compilerCache.ts): the layouts are under test here, not g++.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const fixture = path.join(repo, 'fixtures/layouts/tile_edges.py');
const orchBin = path.join(repo, 'dist/bin/orch.js');

const N = 10; // arrays are 10 x 10 x 2: a 4 x 4 rank domain inside a halo of 3
const target: LayoutTarget = { layout: parseLayout('3x3'), domain: [4, 4, 2], halo: 3 };
const FILL = -1;

/** Hand-computed: what tile_edges writes at array point (i, j) on code path `cp`. */
function expected(cp: CodePath, field: 'q' | 'halo_q', i: number, j: number): number {
  const [lo, hi] = field === 'q' ? [3, 6] : [2, 7];
  if (i < lo || i > hi || j < lo || j > hi) return FILL;
  const e = edgesOf(cp);
  let v = 0;
  if (e.west && i === 3) v += 1;
  if (e.east && i === 6) v += 2;
  if (e.south && j === 3) v += 4;
  if (e.north && j === 6) v += 8;
  // local_is - 1 and local_ie + 1 of the grown call: the first halo columns, on every rank
  if (field === 'halo_q' && (i === 2 || i === 7)) v += 16;
  return v;
}

function fields(): { q: NDArray; halo_q: NDArray } {
  const make = () => {
    const a = allocate('float64', [N, N, 2]);
    (a.data as Float64Array).fill(FILL);
    return a;
  };
  return { q: make(), halo_q: make() };
}

function checkMask(cp: CodePath, got: { q: NDArray; halo_q: NDArray }, how: string): void {
  for (const name of ['q', 'halo_q'] as const) {
    for (let i = 0; i < N; i++) {
      for (let j = 0; j < N; j++) {
        for (let k = 0; k < 2; k++) {
          const v = Number(got[name].data[(i * N + j) * 2 + k]);
          assert.is(v, expected(cp, name, i, j), `${how} ${cp} ${name}[${i}, ${j}, ${k}]`);
        }
      }
    }
  }
}

const root = mkdtempSync(path.join(os.tmpdir(), 'orch-layout-'));
const config = await resolveConfig({ configFile: null, cwd: root });
config.cacheRoot = root;
const ccache = compilerCache(root);
config.compiler.launcher = ['ccache'];

const t = suite('layouts');

t('every code path of a 3x3 layout marks exactly its tile edges, interpreted and compiled', async () => {
  // the in-process builds run ccache with this process's environment
  Object.assign(process.env, ccache.env);
  await ccache.start();
  const paths = codePaths(target.layout);
  const pipeline = { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined };
  const results = await Promise.all(
    paths.map(async (cp) => {
      const c = new Compiler({ ...config, verifyIR: true }, pipeline, cp, target);
      const req = { modules: [fixture], entry: 'tile_edges', externals: {}, defines: {} };
      return { cp, py: await c.build({ ...req, mode: 'python' }), built: await c.build({ ...req, mode: 'build' }) };
    }),
  );
  for (const { cp, py, built } of results) {
    assert.is(py.errors.length + built.errors.length, 0, [...py.errors, ...built.errors].map((d) => formatDiagnostic(d)).join('\n'));
    const a = fields();
    new Interpreter(py.entries[0].program!).run(a);
    checkMask(cp, a, 'interpreted');
    const b = fields();
    const lib = NativeLibrary.open(built.entries[0].library!, built.entries[0].symbol!);
    try {
      lib.run(b);
    } finally {
      lib.close();
    }
    checkMask(cp, b, 'compiled');
    assert.match(built.entries[0].dir!, `${path.sep}.gt_cache_${cp}${path.sep}`);
  }
});

t('without a layout, the region externals are missing (a located error)', async () => {
  const c = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await c.build({ modules: [fixture], entry: 'tile_edges', externals: {}, defines: {}, mode: 'python' });
  assert.is(r.errors[0]?.code, 'E_EXTERNAL_MISSING', r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  assert.ok(r.errors[0].loc?.line);
  assert.match(r.errors[0].hint ?? '', '--layout');
});

async function orch(args: string[], cwd: string, env: Record<string, string> = {}) {
  ccache.configure(cwd);
  const r = await execa(process.execPath, [orchBin, ...args], { cwd, env: { ...ccache.env, GT_CACHE_ROOT: cwd, ...env }, reject: false });
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

const cacheFolders = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('.gt_cache_')).map((n) => n.slice('.gt_cache_'.length)).sort();

t('orch build --layout builds the distinct code paths only, and records what it built for', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-layout-cli-'));
  const two = await orch(['build', fixture, '--layout', '2x2', '--rank-domain', '4,4,2', '--json'], dir);
  assert.is(two.code, 0, two.stderr);
  const j2 = JSON.parse(two.stdout);
  assert.equal(j2.codepaths, ['BL', 'BR', 'TL', 'TR']);
  assert.is(j2.entries.length, 4);
  assert.equal(cacheFolders(dir), ['BL', 'BR', 'TL', 'TR']);
  const three = await orch(['build', fixture, '--layout', '3x3', '--rank-domain', '4,4,2', '--json'], dir);
  const j3 = JSON.parse(three.stdout);
  assert.is(j3.entries.length, 9);
  const status = Object.fromEntries(j3.entries.map((e: { codepath: string; status: string }) => [e.codepath, e.status]));
  assert.equal(status, { BL: 'hit', B: 'miss', BR: 'hit', L: 'miss', C: 'miss', R: 'miss', TL: 'hit', T: 'miss', TR: 'hit' }, 'corner paths of 2x2 and 3x3 are the same builds');
  assert.equal(cacheFolders(dir), ['B', 'BL', 'BR', 'C', 'L', 'R', 'T', 'TL', 'TR']);
  const one = await orch(['build', fixture, '--layout', '1x1', '--rank-domain', '4,4,2', '--json'], dir);
  assert.equal(JSON.parse(one.stdout).codepaths, ['A']);
  const odd = await orch(['build', fixture, '--layout', '2x3', '--rank-domain', '4,4,2', '--json'], dir);
  assert.equal(JSON.parse(odd.stdout).codepaths, ['BL', 'BR', 'L', 'R', 'TL', 'TR']);

  const r = j3.entries.find((e: { codepath: string }) => e.codepath === 'R');
  const info = JSON.parse(readFileSync(path.join(r.dir, 'build-info.json'), 'utf8'));
  assert.equal(info.layout, { layout: '3x3', codepath: 'R', domain: [4, 4, 2], halo: 3 });
  assert.is(info.inputs.preset, 'cpu');
  assert.match(info.inputs.orch, /^\d+\.\d+\.\d+\+[0-9a-f]{16}$/);
  assert.equal(info.inputs.layout, { domain: [4, 4, 2], halo: 3 });

  const bad = await orch(['build', fixture, '--layout', '1x4', '--rank-domain', '4,4,2'], dir);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, 'E_LAYOUT_UNSUPPORTED');
  const noDomain = await orch(['build', fixture, '--layout', '3x3'], dir);
  assert.is(noDomain.code, 2);
  assert.match(noDomain.stderr, '--rank-domain');
});

t('orch run --layout 6x6 --rank 17 runs code path R; a different rank domain is a miss that says so', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-layout-run-'));
  const built = await orch(['build', fixture, '--layout', '3x3', '--rank-domain', '4,4,2'], dir);
  assert.is(built.code, 0, built.stderr);
  const ins: string[] = [];
  const out = path.join(dir, 'out');
  const run = await orch(['run', `${fixture}:tile_edges`, '--mode', 'run', '--layout', '6x6', '--rank', '17', '--rank-domain', '4,4,2', '--shape', `${N},${N},2`, '--out', out, '--json', '--check', ...ins], dir);
  assert.is(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.is(report.codepath, 'R');
  assert.is(report.cache, 'hit');
  assert.ok(report.check.passed);
  const q = readNpy(path.join(out, 'q.npy'));
  for (let i = 3; i <= 6; i++) for (let j = 3; j <= 6; j++) assert.is(Number(q.data[(i * N + j) * 2]), expected('R', 'q', i, j), `q[${i}, ${j}]`);

  const other = await orch(['run', `${fixture}:tile_edges`, '--mode', 'run', '--layout', '6x6', '--rank', '17', '--rank-domain', '5,4,2', '--shape', `${N},${N},2`], dir);
  assert.is(other.code, 1);
  assert.match(other.stderr, 'code path R of rank 17 in layout 6x6');
  assert.match(other.stderr, 'per-rank domain (built for 4x4x2, asked for 5x4x2) changed');
  const noRank = await orch(['run', `${fixture}:tile_edges`, '--layout', '3x3', '--rank-domain', '4,4,2', '--shape', `${N},${N},2`], dir);
  assert.is(noRank.code, 2);
  assert.match(noRank.stderr, 'needs --rank');
});

t('the Python package resolves ORCH_LAYOUT/ORCH_RANK to a code path and builds only that one', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-layout-py-'));
  const code = `
import sys, json, numpy as np, orch
sys.path.insert(0, sys.argv[1])
import tile_edges
q = np.full((${N}, ${N}, 2), -1.0); h = np.full((${N}, ${N}, 2), -1.0)
tile_edges.tile_edges(q, h)
print(json.dumps(q[:, :, 0].tolist()))`;
  ccache.configure(dir);
  const r = await execa('python3', ['-c', code, path.join(repo, 'fixtures/layouts')], {
    cwd: dir,
    reject: false,
    env: { ...ccache.env, PYTHONPATH: path.join(repo, 'python'), GT_CACHE_ROOT: dir, ORCH_MODE: 'build-and-run', ORCH_LAYOUT: '6x6', ORCH_RANK: '30', ORCH_DOMAIN: '4,4,2' },
  });
  assert.is(r.exitCode, 0, String(r.stderr));
  const q = JSON.parse(String(r.stdout)) as number[][];
  for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) assert.is(q[i][j], expected('TL', 'q', i, j), `q[${i}, ${j}]`);
  assert.equal(cacheFolders(dir), ['TL'], 'rank 30 of 6x6 is TL, and only TL is built');
  assert.ok(existsSync(path.join(dir, '.gt_cache_TL')));
  console.log(`  ${await ccache.hitRate()}`);
});

t.run();
