import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../core/config/loadConfig.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import { simulateRanks } from '../core/interpreter/RankSimulation.js';
import type { Program } from '../core/ir/types.js';
import type { Boundary } from '../core/layout/HaloTopology.js';
import { codePathOfRank, codePaths, parseLayout, type CodePath, type RankLayout } from '../core/layout/RankLayout.js';
import { REPO } from './TempProject.js';
import { firstDifference, gather, globalField, HALO, localShape, scatter, type GlobalDomain } from './haloDomain.js';

/**
 * The interpreter's multi-rank simulation of halo exchanges (core/interpreter/
 * RankSimulation.ts): a program with halo updates between its stencils, run on 1x1, 2x2
 * and 3x3 layouts over one global domain, gives the 1x1 result bit for bit, on a periodic
 * tile and on a tile with edges (where regions act on the edge code paths). The MPI runs
 * (test/mpi.test.ts) are checked against this.
 */

const fixture = path.join(REPO, 'fixtures/layouts/halo_diffusion.py');
const domain: GlobalDomain = { n: 12, nz: 2 };
const root = mkdtempSync(path.join(os.tmpdir(), 'orch-halo-sim-'));
const config = await resolveConfig({ configFile: null, cwd: root });
config.cacheRoot = root;
const pipeline = { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined };

export async function programsFor(entry: string, layout: RankLayout): Promise<Map<CodePath, Program>> {
  const [nx, ny, nz] = localShape(domain, layout);
  const target = { layout, domain: [nx - 2 * HALO, ny - 2 * HALO, nz] as [number, number, number], halo: HALO };
  const out = new Map<CodePath, Program>();
  for (const cp of codePaths(layout)) {
    const r = await new Compiler({ ...config, verifyIR: true }, pipeline, cp, target).build({ modules: [fixture], entry, externals: {}, defines: {}, mode: 'python' });
    assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
    out.set(cp, r.entries[0].program!);
  }
  return out;
}

/** Runs `entry` on every rank of `layout` (simulated) and gathers q, r and s. */
async function simulate(entry: string, layout: RankLayout, boundary: Boundary): Promise<Float64Array[]> {
  const programs = await programsFor(entry, layout);
  const ranks = layout.x * layout.y;
  const globals = [globalField(domain, 1), globalField(domain, 2), globalField(domain, 3)];
  const args = Array.from({ length: ranks }, (_, rank) => ({ q: scatter(globals[0], domain, layout, rank), r: scatter(globals[1], domain, layout, rank), s: scatter(globals[2], domain, layout, rank), nu: 0.01 }));
  simulateRanks(Array.from({ length: ranks }, (_, rank) => programs.get(codePathOfRank(layout, rank))!), args, layout, boundary);
  return (['q', 'r', 's'] as const).map((f) => gather(args.map((a) => a[f]), domain, layout));
}

const t = suite('halo exchange, simulated');

for (const [entry, boundary] of [['diffuse_periodic', 'periodic'], ['diffuse_walls', 'edges']] as const) {
  t(`${entry} (${boundary}): 2x2 and 3x3 ranks give the 1x1 result bit for bit`, async () => {
    const one = await simulate(entry, parseLayout('1x1'), boundary);
    for (const l of ['2x2', '3x3']) {
      const many = await simulate(entry, parseLayout(l), boundary);
      one.forEach((field, f) => {
        const at = firstDifference(field, many[f]);
        assert.is(at, -1, `${entry} ${l}: field ${'qrs'[f]} differs at ${at}: ${field[at]} vs ${many[f][at]}`);
      });
    }
  });
}

t('the exchange matters: periodic and edge boundaries give different results, and a 2x2 run with no exchange differs', async () => {
  const periodic = await simulate('diffuse_periodic', parseLayout('2x2'), 'periodic');
  const edges = await simulate('diffuse_periodic', parseLayout('2x2'), 'edges');
  assert.ok(firstDifference(periodic[0], edges[0]) >= 0);
  // each rank alone (the halo keeps its initial values): not the 1x1 result
  const layout = parseLayout('2x2');
  const programs = await programsFor('diffuse_periodic', layout);
  const globals = [globalField(domain, 1), globalField(domain, 2), globalField(domain, 3)];
  const alone = [0, 1, 2, 3].map((rank) => {
    const a = { q: scatter(globals[0], domain, layout, rank), r: scatter(globals[1], domain, layout, rank), s: scatter(globals[2], domain, layout, rank), nu: 0.01 };
    new Interpreter(programs.get(codePathOfRank(layout, rank))!).run(a);
    return a.q;
  });
  const one = await simulate('diffuse_periodic', parseLayout('1x1'), 'edges');
  assert.ok(firstDifference(one[0], gather(alone, domain, layout)) >= 0);
});

t('a run of one rank refuses a layout of several (the interpreter simulates them with simulateRanks)', async () => {
  const programs = await programsFor('diffuse_periodic', parseLayout('2x2'));
  const a = { q: scatter(globalField(domain, 1), domain, parseLayout('2x2'), 0), r: scatter(globalField(domain, 1), domain, parseLayout('2x2'), 0), s: scatter(globalField(domain, 1), domain, parseLayout('2x2'), 0), nu: 0.01 };
  try {
    simulateRanks([programs.get('BL')!], [a], parseLayout('2x2'), 'periodic');
    assert.unreachable('one rank ran a 2x2 layout');
  } catch (e) {
    assert.match(String((e as Error).message), 'has 4 ranks on its tile, but the run has 1');
  }
});

t.run();
