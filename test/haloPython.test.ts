import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLayout } from '../core/layout/RankLayout.js';
import { readNpy, writeNpy } from '../core/runtime/npy.js';
import { ensureDir } from '../core/cache/ensureDir.js';
import { firstDifference, gather, HALO_FIELDS, HALO_FIXTURE, rankInputs, simulate, type GlobalDomain } from './haloDomain.js';
import { REPO, TempProject } from './TempProject.js';

/**
 * halo_update and halo_update_start/wait as plain Python (ORCH_MODE=python, the orch
 * package's python/orch/halo.py): one rank, whose periodic exchange fills its halo from
 * its own opposite side, as the interpreter's simulation of a 1x1 layout does; and a
 * multi-rank layout refused in Python mode.
 */

const domain: GlobalDomain = { n: 12, nz: 2 };
const project = new TempProject('halo-python');
copyFileSync(HALO_FIXTURE, project.path('halo_diffusion.py'));
copyFileSync(path.join(REPO, 'fixtures/mpi/rank_run.py'), project.path('rank_run.py'));

async function pythonRun(entry: string, boundary: string, layout = '1x1') {
  const folder = project.path(`runs/${entry}-${boundary}-${layout}`);
  rankInputs(domain, parseLayout('1x1')).forEach((fields, rank) => {
    ensureDir(path.join(folder, `rank${rank}`));
    for (const f of HALO_FIELDS) writeNpy(path.join(folder, `rank${rank}`, `${f}.npy`), fields[f]);
  });
  const r = await execa('python3', ['rank_run.py', entry, folder], {
    cwd: project.dir,
    reject: false,
    all: true,
    env: { PYTHONPATH: `${path.join(REPO, 'python')}:${project.dir}`, GT_CACHE_ROOT: project.dir, ORCH_MODE: 'python', ORCH_BOUNDARY: boundary, ORCH_LAYOUT: layout, ORCH_DOMAIN: '12,12,2' },
  });
  return { code: r.exitCode, output: String(r.all), gathered: () => HALO_FIELDS.map((f) => gather([readNpy(path.join(folder, 'rank0', `${f}.out.npy`))], domain, parseLayout('1x1'))) };
}

const t = suite('halo exchange in Python mode');

// (diffuse_walls's regions need a layout's externals, which Python mode does not pass yet)
for (const [entry, boundary] of [['diffuse_periodic', 'periodic'], ['diffuse_periodic', 'edges']] as const) {
  t(`${entry} (${boundary}): Python mode equals the interpreter's 1x1 run bit for bit`, async () => {
    const r = await pythonRun(entry, boundary);
    assert.is(r.code, 0, r.output);
    const want = await simulate(entry, parseLayout('1x1'), boundary, domain);
    r.gathered().forEach((field, f) => {
      const at = firstDifference(field, want[f]);
      assert.is(at, -1, `${entry}: ${HALO_FIELDS[f]} differs at ${at}: ${field[at]} vs ${want[f][at]}`);
    });
  });
}

t('Python mode refuses a layout of several ranks, naming what to do', async () => {
  const r = await pythonRun('diffuse_periodic', 'periodic', '2x2');
  assert.is.not(r.code, 0);
  assert.match(r.output, 'halo_update in Python mode runs one rank, but the layout is 2x2');
});

t.run();
