import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Expr, HLoop, Offset, Stmt, VLoop } from '../../core/ir/types.js';
import { fusable, type FusedLoop } from './cudaFusion.js';

/** Which consecutive PARALLEL loop nests one CUDA kernel may run point by point. */

const at = { file: 'f.py', line: 1, col: 1 };
const int = (value: number): Expr => ({ kind: 'lit', value, dtype: 'int64' });
const n = (axis: number): Expr => ({ kind: 'shape', name: 'q', axis, dtype: 'int64' });
const minus = (e: Expr, c: number): Expr => ({ kind: 'binary', op: '-', left: e, right: int(c), dtype: 'int64' });
const fld = (name: string, offset: Offset = [0, 0, 0]): Expr => ({ kind: 'field', name, offset, dtype: 'float64' });
const assign = (target: string, value: Expr, kOffset?: number): Stmt => ({ kind: 'assign', target, value, loc: at, ...(kOffset ? { kOffset } : {}) });
const loop = (body: Stmt[], order: VLoop['order'] = 'PARALLEL', i: [Expr, Expr] = [int(0), n(0)], k: [Expr, Expr] = [int(0), n(2)]): FusedLoop => {
  const h: HLoop = { i: { lo: i[0], hi: i[1] }, j: { lo: int(0), hi: n(1) }, body };
  return { v: { order, k: { lo: k[0], hi: k[1] }, body: [h], loc: at }, h };
};
const axes: Record<string, string> = { q: 'IJK', tmp: 'IJK', out: 'IJK', plane: 'IJ' };
const axesOf = (name: string) => axes[name];

test('a loop reading at its point what the loop before wrote joins it, whatever it reads of arrays nobody writes', () => {
  // fixtures/diffusion: vertical_smooth's three K intervals, then blend
  const smooth = [
    loop([assign('tmp', fld('q'))], 'PARALLEL', undefined, [int(0), int(1)]),
    loop([assign('tmp', fld('q', [0, 0, -1]))], 'PARALLEL', undefined, [int(1), minus(n(2), 1)]),
    loop([assign('tmp', fld('q'))], 'PARALLEL', undefined, [minus(n(2), 1), n(2)]),
  ];
  assert.ok(fusable(smooth.slice(0, 1), smooth[1], axesOf));
  assert.ok(fusable(smooth.slice(0, 2), smooth[2], axesOf));
  assert.ok(fusable(smooth, loop([assign('out', fld('tmp'))]), axesOf));
  assert.ok(fusable([loop([assign('tmp', fld('q', [1, 0, 0]))])], loop([assign('out', fld('tmp'))], 'PARALLEL', [int(1), minus(n(0), 1)]), axesOf), 'ranges a point apart');
});

test('a loop that touches what another writes anywhere but at the point keeps its own kernel', () => {
  const write = loop([assign('tmp', fld('q'))]);
  assert.not.ok(fusable([write], loop([assign('out', fld('tmp', [1, 0, 0]))]), axesOf), 'reads a neighbour the earlier loop writes');
  assert.not.ok(fusable([write], loop([assign('out', fld('tmp', [0, 0, 1]))]), axesOf), 'reads the level above');
  assert.not.ok(fusable([loop([assign('out', fld('q', [-1, 0, 0]))])], loop([assign('q', fld('tmp'))]), axesOf), 'writes what the earlier loop read off its point');
  assert.not.ok(fusable([write], loop([assign('tmp', fld('q'), 1)]), axesOf), 'a write at a K offset');
  assert.not.ok(fusable([write], loop([{ ...assign('tmp', fld('q')), kVar: int(1) } as Stmt]), axesOf), 'a write at a variable K offset');
  assert.not.ok(fusable([write], loop([assign('plane', fld('q'))]), axesOf), 'an IJ field written over K');
  assert.not.ok(fusable([write], loop([assign('out', fld('tmp'))], 'FORWARD'), axesOf), 'a K sweep');
  const varK: Expr = { kind: 'field', name: 'q', offset: [0, 0, 0], kOffset: int(1), dtype: 'float64' };
  assert.not.ok(fusable([write], loop([assign('out', varK)]), axesOf), 'a variable-K read records errors');
  const check: Stmt = { kind: 'check', target: 'tmp', check: { test: 'nan', action: 'abort' }, loc: at } as Stmt;
  assert.not.ok(fusable([write], loop([check]), axesOf), 'a debug check');
});

test('loops over far apart ranges are not fused (threads would cover the hull of both)', () => {
  const west = loop([assign('tmp', fld('q'))], 'PARALLEL', [int(0), int(1)]);
  const east = loop([assign('out', fld('q'))], 'PARALLEL', [minus(n(0), 1), n(0)]);
  assert.not.ok(fusable([west], east, axesOf));
});

test.run();
