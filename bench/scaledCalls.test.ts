import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Program } from '../core/ir/types.js';
import type { EntryInterface } from '../core/runtime/callArgs.js';
import type { NDArray } from '../core/runtime/ndarray.js';
import type { EntryCall } from '../test/deviceRuns.js';
import { scaledCall } from './scaledCalls.js';

/** The GPU bench's growing of a call to a benchmark shape (bench/gpuBench.ts section 2). */

const f64 = (shape: number[], first = 0): NDArray => ({
  dtype: 'float64',
  shape,
  data: Float64Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, n) => first + n),
});

function call(): EntryCall {
  const iface: EntryInterface = {
    name: 'p',
    entryKind: 'program',
    params: [
      { name: 'vec', kind: 'field', dtype: 'float64', axes: 'IJK', dims: [3] },
      { name: 'col', kind: 'field', dtype: 'float64', axes: 'K', dims: [2] },
      { name: 'table', kind: 'field', dtype: 'float64', axes: '', dims: [4] },
      { name: 'q', kind: 'field', dtype: 'float64', axes: 'IJK' },
    ],
    callbacks: [],
  } as EntryInterface;
  const inputs = { vec: f64([2, 3, 4, 3]), col: f64([4, 2], 100), table: f64([4], 200), q: f64([2, 3, 4], 300) };
  return { iface, program: {} as Program, inputs, call: { scalars: {} } };
}

test('data dimensions and GlobalTables keep their extents; spatial axes grow to the target, tiled periodically', () => {
  const c = scaledCall(call(), [5, 6, 7]);
  assert.equal(c.inputs.vec.shape, [5, 6, 7, 3]);
  assert.equal(c.inputs.col.shape, [7, 2]);
  assert.equal(c.inputs.table.shape, [4]);
  assert.equal(c.inputs.q.shape, [5, 6, 7]);
  for (const a of Object.values(c.inputs)) assert.ok(!a.data.some((x) => Number.isNaN(Number(x))), 'no NaN');
  // vec[i, j, k, d] = src[i % 2, j % 3, k % 4, d]
  const vec = c.inputs.vec.data as Float64Array;
  const at = (i: number, j: number, k: number, d: number) => vec[((i * 6 + j) * 7 + k) * 3 + d];
  assert.is(at(3, 4, 6, 2), ((1 * 3 + 1) * 4 + 2) * 3 + 2);
  assert.is(at(4, 0, 5, 1), ((0 * 3 + 0) * 4 + 1) * 3 + 1);
  // col[k, d] = 100 + src[k % 4, d]; the table is unchanged
  assert.is((c.inputs.col.data as Float64Array)[5 * 2 + 1], 100 + 1 * 2 + 1);
  assert.equal([...(c.inputs.table.data as Float64Array)], [200, 201, 202, 203]);
  assert.is((c.inputs.q.data as Float64Array)[(4 * 6 + 5) * 7 + 6], 300 + (0 * 3 + 2) * 4 + 2);
});

test('the domain grows with the fields', () => {
  const c = call();
  c.call = { scalars: {}, domain: [2, 1, 4] };
  assert.equal(scaledCall(c, [5, 6, 7]).call.domain, [5, 4, 7]);
});

test.run();
