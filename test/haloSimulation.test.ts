import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import { simulateRanks } from '../core/interpreter/RankSimulation.js';
import { codePathOfRank, parseLayout } from '../core/layout/RankLayout.js';
import { firstDifference, gather, programsFor, rankInputs, simulate, type GlobalDomain } from './haloDomain.js';

/**
 * The interpreter's multi-rank simulation of halo exchanges (core/interpreter/
 * RankSimulation.ts): a program with halo updates between its stencils, run on 1x1, 2x2
 * and 3x3 layouts over one global domain, gives the 1x1 result bit for bit, on a periodic
 * tile and on a tile with edges (where regions act on the edge code paths). The MPI runs
 * (test/mpi.test.ts) are checked against this.
 */

const domain: GlobalDomain = { n: 12, nz: 2 };

const t = suite('halo exchange, simulated');

for (const [entry, boundary] of [['diffuse_periodic', 'periodic'], ['diffuse_walls', 'edges']] as const) {
  t(`${entry} (${boundary}): 2x2 and 3x3 ranks give the 1x1 result bit for bit`, async () => {
    const one = await simulate(entry, parseLayout('1x1'), boundary, domain);
    for (const l of ['2x2', '3x3']) {
      const many = await simulate(entry, parseLayout(l), boundary, domain);
      one.forEach((field, f) => {
        const at = firstDifference(field, many[f]);
        assert.is(at, -1, `${entry} ${l}: field ${'qrs'[f]} differs at ${at}: ${field[at]} vs ${many[f][at]}`);
      });
    }
  });
}

t('the exchange matters: periodic and edge boundaries differ, and ranks that exchange nothing miss the 1x1 result', async () => {
  const layout = parseLayout('2x2');
  const periodic = await simulate('diffuse_periodic', layout, 'periodic', domain);
  const edges = await simulate('diffuse_periodic', layout, 'edges', domain);
  assert.ok(firstDifference(periodic[0], edges[0]) >= 0);
  const programs = await programsFor('diffuse_periodic', layout, domain);
  const alone = rankInputs(domain, layout).map((f, rank) => {
    const a = { ...f, nu: 0.01 };
    // one rank of its own: its halo keeps its initial values
    new Interpreter(programs.get(codePathOfRank(layout, rank))!).run(a);
    return a.q;
  });
  assert.ok(firstDifference(edges[0], gather(alone, domain, layout)) >= 0);
});

t('a run of one rank refuses a layout of several', async () => {
  const layout = parseLayout('2x2');
  const programs = await programsFor('diffuse_periodic', layout, domain);
  try {
    simulateRanks([programs.get('BL')!], [{ ...rankInputs(domain, layout)[0], nu: 0.01 }], layout, 'periodic');
    assert.unreachable('one rank ran a 2x2 layout');
  } catch (e) {
    assert.match(String((e as Error).message), 'has 4 ranks on its tile, but the run has 1');
  }
});

t.run();
