import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { triadPaired } from './triadPairs.js';

/** The bench's fraction of triad: each round's fixture time over that round's own triad. */

test('a machine whose bandwidth halves mid-run keeps the fraction a fixed-speed kernel has', () => {
  // the fixture always moves its bytes at 0.5 of the bandwidth of the moment
  const speeds = [40, 40, 20, 20, 20];
  let round = 0;
  const order: string[] = [];
  const r = triadPaired(1e9, 5, () => {
    order.push('T');
    return speeds[round];
  }, () => {
    order.push('F');
    const s = 1 / (0.5 * speeds[round]);
    round++;
    return s;
  });
  assert.is(order.join(''), 'TFTFTFTFTF', 'the triad is taken right before each fixture measurement');
  assert.ok(Math.abs(r.frac - 0.5) < 1e-12, `fraction ${r.frac}`);
  // one triad from the start (40) would have called the same kernel 0.25 of triad
  assert.ok(Math.abs(r.gbps / 40 - 0.25) < 1e-12);
  assert.is(r.triadGbps, 20);
  assert.is(r.rounds.length, 5);
});

test('the median round decides, so one disturbed round does not', () => {
  const triads = [30, 30, 30];
  const secs = [1, 1, 10];
  let i = 0;
  let j = 0;
  const r = triadPaired(15e9, 3, () => triads[i++], () => secs[j++]);
  assert.is(r.secs, 1);
  assert.is(r.gbps, 15);
  assert.is(r.frac, 0.5);
});

test('no rounds is a usage error', () => {
  assert.throws(() => triadPaired(1, 0, () => 1, () => 1), /rounds must be >= 1/);
});

test.run();
