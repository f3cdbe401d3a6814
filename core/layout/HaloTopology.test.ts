import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkRankCount, DIRECTIONS, haloBoxes, launcherRank, neighbours, opposite } from './HaloTopology.js';

const t = suite('halo topology');

const ranks = (n: ReturnType<typeof neighbours>) => n.map((x) => (x ? x.rank : null));

t("NDSL's numbering: rank r at column r % x, row r / x; W, E, S, N, SW, SE, NW, NE", () => {
  // 3x3: rank 4 is the centre, every neighbour present
  assert.equal(ranks(neighbours({ x: 3, y: 3 }, 'edges', 4)), [3, 5, 1, 7, 0, 2, 6, 8]);
  // rank 0 (BL) on a tile with edges: only E, N and NE
  assert.equal(ranks(neighbours({ x: 3, y: 3 }, 'edges', 0)), [null, 1, null, 3, null, null, null, 4]);
  // periodic: wraps both ways
  assert.equal(ranks(neighbours({ x: 3, y: 3 }, 'periodic', 0)), [2, 1, 6, 3, 8, 7, 5, 4]);
  // 2 ranks along I, periodic: west and east are the same rank, told apart by direction
  assert.equal(ranks(neighbours({ x: 2, y: 2 }, 'periodic', 0)), [1, 1, 2, 2, 3, 3, 3, 3]);
  // one rank, periodic: itself all round
  assert.equal(ranks(neighbours({ x: 1, y: 1 }, 'periodic', 0)), [0, 0, 0, 0, 0, 0, 0, 0]);
  assert.equal(ranks(neighbours({ x: 1, y: 1 }, 'edges', 0)), Array(8).fill(null));
  // the second tile of a run numbers its ranks after the first's
  assert.equal(ranks(neighbours({ x: 2, y: 2 }, 'edges', 4)), [null, 5, null, 6, null, null, null, 7]);
  assert.ok(neighbours({ x: 3, y: 3 }, 'periodic', 4).every((n) => n?.rotation === 0));
});

t('directions pair with their opposites', () => {
  DIRECTIONS.forEach(([di, dj], d) => assert.equal(DIRECTIONS[opposite(d)], [-di, -dj]));
});

t('send and receive boxes: compute strips towards a side, halo strips from it', () => {
  // compute 4x5 inside a halo of 3, width 2
  assert.equal(haloBoxes(4, 5, 3, 2, 0), { send: { i: [3, 5], j: [3, 8] }, recv: { i: [1, 3], j: [3, 8] } });
  assert.equal(haloBoxes(4, 5, 3, 2, 7), { send: { i: [5, 7], j: [6, 8] }, recv: { i: [7, 9], j: [8, 10] } });
});

t('the rank count must match the layout; the launcher rank comes from OpenMPI or PMI', () => {
  assert.throws(() => checkRankCount({ x: 2, y: 2 }, 9), /has 4 ranks on its tile, but the run has 9/);
  checkRankCount({ x: 3, y: 3 }, 9);
  assert.is(launcherRank({ OMPI_COMM_WORLD_RANK: '5' }), 5);
  assert.is(launcherRank({ PMI_RANK: '2' }), 2);
  assert.is(launcherRank({}), undefined);
});

t.run();
