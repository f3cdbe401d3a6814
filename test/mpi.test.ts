import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLayout, type RankLayout } from '../core/layout/RankLayout.js';
import { readNpy, writeNpy } from '../core/runtime/npy.js';
import { ensureDir } from '../core/cache/ensureDir.js';
import { firstDifference, gather, HALO_FIELDS, HALO_FIXTURE, rankInputs, simulate, type GlobalDomain } from './haloDomain.js';
import { ORCH_BIN, REPO, TempProject } from './TempProject.js';

/**
 * Programs under mpirun (OpenMPI; .ci/run installs it): the fixture's diffusion with halo
 * updates between its stencils, built with compiler.mpi and run through the orch Python
 * package, one process per rank. The gathered result equals the 1x1 run bit for bit and
 * the interpreter's simulated run; BuildAndRun on 9 ranks builds each code path once; a
 * rank killed mid-run ends the job instead of hanging it. Builds use -O0 to keep the
 * test short on 2 cores (every layout is built with the same flags).
 */

const domain: GlobalDomain = { n: 12, nz: 2 };
const project = new TempProject('mpi');
// HALO_PACK=1 builds the exchange's other variant (every exchange packed into buffers)
project.write('orch.config.ts', "export default { compiler: { mpi: true, flags: ['-O0', '-std=c++17', '-fPIC', '-shared'], extraFlags: process.env.HALO_PACK ? ['-DORCH_HALO_PACK'] : [] } };\n");
copyFileSync(HALO_FIXTURE, project.path('halo_diffusion.py'));
copyFileSync(path.join(REPO, 'fixtures/mpi/rank_run.py'), project.path('rank_run.py'));

const MPIRUN = ['--oversubscribe', '--allow-run-as-root', '--bind-to', 'none'];

function rankDomain(layout: RankLayout): string {
  return `${domain.n / layout.x},${domain.n / layout.y},${domain.nz}`;
}

/** Writes every rank's inputs under `folder`/rank<r>/. */
function writeInputs(folder: string, layout: RankLayout): void {
  rankInputs(domain, layout).forEach((fields, rank) => {
    const dir = path.join(folder, `rank${rank}`);
    ensureDir(dir);
    for (const f of HALO_FIELDS) writeNpy(path.join(dir, `${f}.npy`), fields[f]);
  });
}

/** mpirun -np N python3 rank_run.py: the ranks' q, r, s gathered. */
async function mpiRun(entry: string, layout: RankLayout, boundary: string, mode: string, extra: { calls?: number; env?: Record<string, string>; timeout?: number } = {}) {
  const folder = project.path(`runs/${entry}-${layout.x}x${layout.y}-${mode}-${Date.now()}`);
  writeInputs(folder, layout);
  const ranks = layout.x * layout.y;
  const t0 = performance.now();
  const r = await execa('mpirun', [...MPIRUN, '-np', String(ranks), 'python3', 'rank_run.py', entry, folder, String(extra.calls ?? 1)], {
    cwd: project.dir,
    reject: false,
    all: true,
    timeout: (extra.timeout ?? 240) * 1000,
    env: {
      PYTHONPATH: `${path.join(REPO, 'python')}:${project.dir}`,
      GT_CACHE_ROOT: project.dir,
      ORCH_MODE: mode,
      ORCH_LAYOUT: `${layout.x}x${layout.y}`,
      ORCH_DOMAIN: rankDomain(layout),
      ORCH_BOUNDARY: boundary,
      // one thread per rank: OpenMP threads of oversubscribed ranks spin against each other
      OMP_NUM_THREADS: '1',
      ...extra.env,
    },
  });
  const seconds = (performance.now() - t0) / 1000;
  const gathered = () => HALO_FIELDS.map((f) => gather(Array.from({ length: ranks }, (_, rank) => readNpy(path.join(folder, `rank${rank}`, `${f}.out.npy`))), domain, layout));
  return { code: r.exitCode, timedOut: r.timedOut, output: String(r.all ?? ''), seconds, gathered };
}

function assertSame(a: Float64Array[], b: Float64Array[], what: string): void {
  a.forEach((field, f) => {
    const at = firstDifference(field, b[f]);
    assert.is(at, -1, `${what}: field ${HALO_FIELDS[f]} differs at ${at}: ${field[at]} vs ${b[f]?.[at]}`);
  });
}

const t = suite('programs under mpirun');
/** The compiled 1x1 results, which every other layout of the same tile must equal. */
const oneByOne: Record<string, Float64Array[]> = {};

t('periodic tile: a 2x2 run under mpirun equals the 1x1 run bit for bit, and the interpreter\'s simulated 2x2 run', async () => {
  const one = parseLayout('1x1');
  const four = parseLayout('2x2');
  const r1 = await mpiRun('diffuse_periodic', one, 'periodic', 'build-and-run');
  assert.is(r1.code, 0, r1.output);
  const r4 = await mpiRun('diffuse_periodic', four, 'periodic', 'build-and-run');
  assert.is(r4.code, 0, r4.output);
  oneByOne.periodic = r1.gathered();
  assertSame(r1.gathered(), r4.gathered(), 'compiled 1x1 vs compiled 2x2');
  assertSame(r4.gathered(), await simulate('diffuse_periodic', four, 'periodic', domain), 'compiled 2x2 vs simulated 2x2');

  // orch run under mpirun: each process finds its rank, loads its code path's build (the
  // same entries: same defines and import path) and writes its fields beside the others'
  const cli = await execa('mpirun', [...MPIRUN, '-np', '4', process.execPath, ORCH_BIN, 'run', 'halo_diffusion.py:diffuse_periodic', '--mode', 'run', '--layout', '2x2', '--rank-domain', rankDomain(four), '--define', 'n_steps=3', '--shape', '12,12,2', '--scalars', '{"nu": 0.01}', '--boundary', 'periodic', '--out', 'cli-out'], {
    cwd: project.dir,
    reject: false,
    all: true,
    timeout: 120_000,
    env: { GT_CACHE_ROOT: project.dir, PYTHONPATH: `${path.join(REPO, 'python')}:${project.dir}`, OMP_NUM_THREADS: '1' },
  });
  assert.is(cli.exitCode, 0, String(cli.all));
  assert.is(String(cli.all).match(/\[run\] cache hit/g)?.length, 4, String(cli.all));
  for (let rank = 0; rank < 4; rank++) assert.ok(existsSync(project.path(`cli-out/rank${rank}/q.npy`)), `rank ${rank} wrote its fields`);
});

t('tile with edges: BuildAndRun under mpirun -np 9 on an empty cache builds each of the 9 code paths exactly once, by its rank; the result equals 1x1 and the simulation', async () => {
  const one = parseLayout('1x1');
  const nine = parseLayout('3x3');
  const r1 = await mpiRun('diffuse_walls', one, 'edges', 'build-and-run');
  assert.is(r1.code, 0, r1.output);
  const r9 = await mpiRun('diffuse_walls', nine, 'edges', 'build-and-run', { timeout: 500 });
  assert.is(r9.code, 0, r9.output);
  const paths = ['BL', 'B', 'BR', 'L', 'C', 'R', 'TL', 'T', 'TR'];
  // rank r of a 3x3 tile is the only rank on its code path
  for (const [rank, cp] of paths.entries()) {
    const root = project.path(`.gt_cache_${cp}/halo_diffusion/diffuse_walls`);
    const history = readFileSync(path.join(root, 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const built = history.filter((h) => h.result === 'miss');
    assert.is(built.length, 1, `${cp}: ${JSON.stringify(history)}`);
    assert.is(built[0].rank, rank, `${cp} built by rank ${built[0].rank}`);
  }
  oneByOne.edges = r1.gathered();
  assertSame(r1.gathered(), r9.gathered(), 'compiled 1x1 vs compiled 3x3');
  assertSame(r9.gathered(), await simulate('diffuse_walls', nine, 'edges', domain), 'compiled 3x3 vs simulated 3x3');
});

// the other layout of each tile: every one of 1x1, 2x2 and 3x3 runs both tiles
for (const [entry, boundary, layout] of [['diffuse_periodic', 'periodic', '3x3'], ['diffuse_walls', 'edges', '2x2']] as const) {
  t(`${boundary === 'periodic' ? 'periodic tile' : 'tile with edges'}: a ${layout} run equals the 1x1 run bit for bit, and the interpreter's simulated ${layout} run`, async () => {
    const l = parseLayout(layout);
    const r = await mpiRun(entry, l, boundary, 'build-and-run', { timeout: 500 });
    assert.is(r.code, 0, r.output);
    assert.ok(oneByOne[boundary], 'the 1x1 run of this tile ran first');
    assertSame(oneByOne[boundary], r.gathered(), `compiled 1x1 vs compiled ${layout}`);
    assertSame(r.gathered(), await simulate(entry, l, boundary, domain), `compiled ${layout} vs simulated ${layout}`);
  });
}

t('the packed variant (-DORCH_HALO_PACK: blocking updates packed too, not in place) gives the same result bit for bit on 2x2', async () => {
  const r = await mpiRun('diffuse_periodic', parseLayout('2x2'), 'periodic', 'build-and-run', { env: { HALO_PACK: '1' } });
  assert.is(r.code, 0, r.output);
  assert.ok(oneByOne.periodic, 'the 1x1 run of the periodic tile ran first');
  assertSame(oneByOne.periodic, r.gathered(), 'in-place 1x1 vs packed 2x2');
});

t('a rank killed mid-run: the others do not hang; mpirun ends the job and says which rank died', async () => {
  const four = parseLayout('2x2');
  // build-and-run: the entries of the first test when run after it, else built here
  const r = await mpiRun('diffuse_periodic', four, 'periodic', 'build-and-run', { calls: 3, env: { KILL_RANK: '1' }, timeout: 400 });
  assert.not.ok(r.timedOut, `the job hung:\n${r.output}`);
  assert.is.not(r.code, 0);
  assert.match(r.output, /rank 1 .*exited on signal 9|signal 9 \(Killed\)/s, r.output);
});

t.run();
