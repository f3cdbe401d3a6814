import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureDir } from '../core/cache/ensureDir.js';
import { parseLayout, type RankLayout } from '../core/layout/RankLayout.js';
import { readNpy, writeNpy } from '../core/runtime/npy.js';
import { firstDifference, gather, HALO_FIELDS, rankInputs, simulate, type GlobalDomain } from './haloDomain.js';
import { REPO, TempProject } from './TempProject.js';

/**
 * NDSL's WrappedHaloUpdater in an orchestrated component (test/python/ndsl_components/
 * halo_diffusion_component.py, the diffusion of fixtures/layouts/halo_diffusion.py written
 * as NDSL code): with the component's own fields, `update()`/`start()`/`wait()` are the
 * library's compiled MPI exchange (no exchange runs in Python); with Quantities from
 * elsewhere, NDSL's updater is called back. Every run equals the interpreter's simulation
 * of `diffuse_periodic` bit for bit, and a 2x2 run under mpirun equals the 1x1 run.
 */

const domain: GlobalDomain = { n: 12, nz: 2 };
const project = new TempProject('ndsl-halo');
project.write('orch.config.ts', "export default { compiler: { mpi: true, flags: ['-O0', '-std=c++17', '-fPIC', '-shared'] } };\n");
const DRIVER = path.join(REPO, 'test/python/ndsl_components/halo_drive.py');
const MPIRUN = ['--oversubscribe', '--allow-run-as-root', '--bind-to', 'none'];

interface Run {
  code: number;
  output: string;
  /** per rank: the exchanges NDSL's updaters ran in Python */
  pythonExchanges: number[];
  gathered: () => Float64Array[];
}

/** The component on every rank of `layout` (under mpirun when `mpi`), FV3_DACEMODE `mode`. */
async function drive(layout: RankLayout, mode: string, opts: { mpi: boolean; elsewhere?: boolean }): Promise<Run> {
  const folder = project.path(`runs/${layout.x}x${layout.y}-${mode}-${opts.elsewhere ? 'elsewhere' : 'own'}-${Date.now()}`);
  rankInputs(domain, layout).forEach((fields, rank) => {
    ensureDir(path.join(folder, `rank${rank}`));
    for (const f of HALO_FIELDS) writeNpy(path.join(folder, `rank${rank}`, `${f}.npy`), fields[f]);
  });
  const ranks = layout.x * layout.y;
  const args = [DRIVER, folder, ...(opts.elsewhere ? ['elsewhere'] : [])];
  const [cmd, argv] = opts.mpi ? ['mpirun', [...MPIRUN, '-np', String(ranks), 'python3', ...args]] : ['python3', args];
  const r = await execa(cmd, argv, {
    cwd: project.dir,
    reject: false,
    all: true,
    timeout: 400_000,
    env: {
      PYTHONPATH: [path.join(REPO, 'python'), path.join(REPO, 'test/python/ndsl_double')].join(path.delimiter),
      GT_CACHE_ROOT: project.dir,
      FV3_DACEMODE: mode,
      ORCH_MODE: '',
      ORCH_LAYOUT: `${layout.x}x${layout.y}`,
      ORCH_DOMAIN: `${domain.n / layout.x},${domain.n / layout.y},${domain.nz}`,
      ORCH_BOUNDARY: 'periodic',
      OMP_NUM_THREADS: '1',
    },
  });
  const output = String(r.all ?? '');
  const report = (rank: number) => path.join(folder, `rank${rank}`, 'report.json');
  const pythonExchanges = Array.from({ length: ranks }, (_, rank) => (existsSync(report(rank)) ? (JSON.parse(readFileSync(report(rank), 'utf8')) as { python_exchanges: number }).python_exchanges : -1));
  const gathered = () => HALO_FIELDS.map((f) => gather(Array.from({ length: ranks }, (_, rank) => readNpy(path.join(folder, `rank${rank}`, `${f}.out.npy`))), domain, layout));
  return { code: r.exitCode ?? -1, output, pythonExchanges, gathered };
}

function assertSame(a: Float64Array[], b: Float64Array[], what: string): void {
  a.forEach((field, f) => {
    const at = firstDifference(field, b[f]);
    assert.is(at, -1, `${what}: field ${HALO_FIELDS[f]} differs at ${at}: ${field[at]} vs ${b[f]?.[at]}`);
  });
}

const t = suite('NDSL halo updaters in orchestrated components');
const one = parseLayout('1x1');
const four = parseLayout('2x2');
let compiledOne: Float64Array[] = [];

t('Python mode: NDSL\'s updaters exchange in Python (the double\'s TileCommunicator), equal to the interpreter\'s 1x1 simulation', async () => {
  const r = await drive(one, 'Python', { mpi: false });
  assert.is(r.code, 0, r.output);
  assert.equal(r.pythonExchanges, [9], r.output);
  assertSame(r.gathered(), await simulate('diffuse_periodic', one, 'periodic', domain), 'Python mode vs simulated 1x1');
});

t('the component\'s own fields: update/start/wait compile into the MPI exchange; 2x2 under mpirun equals 1x1 and the simulated 2x2 bit for bit', async () => {
  const r1 = await drive(one, 'BuildAndRun', { mpi: true });
  assert.is(r1.code, 0, r1.output);
  assert.equal(r1.pythonExchanges, [0], `no exchange in Python: ${r1.output}`);
  compiledOne = r1.gathered();
  assertSame(compiledOne, await simulate('diffuse_periodic', one, 'periodic', domain), 'compiled 1x1 vs simulated 1x1');
  const r4 = await drive(four, 'BuildAndRun', { mpi: true });
  assert.is(r4.code, 0, r4.output);
  assert.equal(r4.pythonExchanges, [0, 0, 0, 0], `no exchange in Python: ${r4.output}`);
  assertSame(r4.gathered(), compiledOne, 'compiled 2x2 vs compiled 1x1');
  assertSame(r4.gathered(), await simulate('diffuse_periodic', four, 'periodic', domain), 'compiled 2x2 vs simulated 2x2');
});

t('fields from elsewhere (other Quantities): NDSL\'s updater is called back, in program order, with the same result', async () => {
  const r = await drive(one, 'BuildAndRun', { mpi: false, elsewhere: true });
  assert.is(r.code, 0, r.output);
  assert.equal(r.pythonExchanges, [9], r.output);
  assertSame(r.gathered(), await simulate('diffuse_periodic', one, 'periodic', domain), 'called back 1x1 vs simulated 1x1');
  const info = await execa('node', [path.join(REPO, 'dist/bin/orch.js'), 'info', path.join(REPO, 'test/python/ndsl_components/halo_diffusion_component.py')], { cwd: project.dir, reject: false, all: true, env: { GT_CACHE_ROOT: project.dir } });
  // the closure of the latest build says why
  assert.match(String(info.all), "self._q_r: WrappedHaloUpdater: called back ('q' is not one of the component's own arrays", String(info.all));
});

t.run();
