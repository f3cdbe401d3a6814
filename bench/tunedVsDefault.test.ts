import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { remeasure, tunedCell, tunedNote, type TunedRow } from './tunedVsDefault.js';

/** The bench's 'tuned/def' column: the re-measurement's order, and what the cell and note say. */

test('the default and the tuned schedule are measured in turn, the order flipped every round', () => {
  const order: string[] = [];
  // a machine that slows down 10 % a call: alternating the order cancels the drift
  let slow = 1;
  const ratios = remeasure({ tile: [8, 8] }, (codegen) => {
    order.push(Object.keys(codegen).length ? 'T' : 'D');
    slow *= 1.1;
    return (Object.keys(codegen).length ? 0.5 : 1) * slow;
  }, 4);
  assert.is(order.join(''), 'DTTDDTTD');
  assert.is(ratios.length, 4);
  const product = ratios.reduce((a, b) => a * b, 1);
  assert.ok(Math.abs(product ** 0.25 - 2) < 1e-9, `the drift cancels in the geometric mean: ${ratios.join(', ')}`);
});

test('the cell shows the bench ratio and, in brackets, the confirmation, marked when it rejected the pick', () => {
  const kept: TunedRow = { schedule: 'tile=2x64', speedup_2t: 2.2, rounds: [2.1, 2.3], confirmed: { speedup: 2.25, required: 1.04, spread: 0.04, holds: true, label: 'tile=2x64' } };
  assert.is(tunedCell(kept), '2.20x (2.25x)');
  assert.is(tunedNote('vertical_solver', kept), 'vertical_solver tile=2x64; confirmed tile=2x64 2.25x against 1.04x needed (noise 4.0 %): kept; bench 2.10/2.30');
  const rejected: TunedRow = { schedule: 'default', speedup_2t: 1, rounds: [], confirmed: { speedup: 1.02, required: 1.06, spread: 0.06, holds: false, label: 'tile=8x16x40' } };
  assert.is(tunedCell(rejected), '1.00x (1.02x rej)');
  assert.match(tunedNote('deln_damping', rejected), 'deln_damping default; confirmed tile=8x16x40 1.02x against 1.06x needed (noise 6.0 %): rejected');
  assert.is(tunedCell(undefined), '-');
});

test.run();
