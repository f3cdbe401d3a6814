import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Expr, HLoop, Offset, Stmt, VLoop } from './types.js';
import { fusionDelays, levelsJam, rollingRows } from './nestFusion.js';

/** The delays that let a PARALLEL loop's nests run fused point by point, and the rows each temporary then keeps. */

const at = { file: 'f.py', line: 1, col: 1 };
const int = (value: number): Expr => ({ kind: 'lit', value, dtype: 'int64' });
const fld = (name: string, offset: Offset = [0, 0, 0]): Expr => ({ kind: 'field', name, offset, dtype: 'float64' });
const sum = (...xs: Expr[]): Expr => xs.reduce((a, b) => ({ kind: 'binary', op: '+', left: a, right: b, dtype: 'float64' }));
const assign = (target: string, value: Expr): Stmt => ({ kind: 'assign', target, value, loc: at });
const nest = (...body: Stmt[]): HLoop => ({ i: { lo: int(0), hi: int(8) }, j: { lo: int(0), hi: int(8) }, body });
const loop = (body: HLoop[], order: VLoop['order'] = 'PARALLEL'): VLoop => ({ order, k: { lo: int(0), hi: int(4) }, body, loc: at });

// hdiff: lap, then flx and fly from lap's neighbours above, then out from flx and fly's neighbours below
const hdiff = loop([
  nest(assign('lap', sum(fld('q', [1, 0, 0]), fld('q', [-1, 0, 0]), fld('q', [0, 1, 0]), fld('q', [0, -1, 0])))),
  nest(assign('flx', sum(fld('lap', [1, 0, 0]), fld('lap'))), assign('flx', sum(fld('flx'), fld('q', [1, 0, 0])))),
  nest(assign('fly', sum(fld('lap', [0, 1, 0]), fld('lap')))),
  nest(assign('out', sum(fld('flx'), fld('flx', [-1, 0, 0]), fld('fly'), fld('fly', [0, -1, 0])))),
]);

test('hdiff: each nest runs where what it reads is written, a row or a column behind', () => {
  assert.equal(fusionDelays(hdiff, 0), [[0, 0], [1, 0], [0, 1], [1, 0]]);
  assert.equal([rollingRows(hdiff, [[0, 0], [1, 0], [0, 1], [1, 0]], 0, 'lap'), rollingRows(hdiff, [[0, 0], [1, 0], [0, 1], [1, 0]], 0, 'flx')], [2, 2]);
  // the outer loop along J: offsets swap roles
  assert.equal(fusionDelays(hdiff, 1), [[0, 0], [0, 1], [1, 0], [1, 0]]);
  assert.is(rollingRows(hdiff, [[0, 0], [1, 0], [0, 1], [1, 0]], 0, 'coeff'), undefined, 'no nest touches coeff');
});

test('orders kept: write after read, write after write; a lexicographic bound may step back along the inner axis', () => {
  // nest 0 reads q a row below; nest 1 overwrites q: it must wait a row
  assert.equal(fusionDelays(loop([nest(assign('a', fld('q', [-1, 0, 0]))), nest(assign('q', fld('b')))]), 0), [[0, 0], [1, 0]]);
  // nest 1 reads a a column below; nest 2 writes a again after nest 1 read it
  assert.equal(fusionDelays(loop([nest(assign('a', fld('q'))), nest(assign('b', fld('a', [0, -1, 0]))), nest(assign('a', fld('b')))]), 0), [[0, 0], [0, 0], [0, 1]]);
  // a row ahead and a column behind: the next row, one column back
  assert.equal(fusionDelays(loop([nest(assign('a', fld('q'))), nest(assign('b', fld('a', [1, -1, 0])))]), 0), [[0, 0], [1, -1]]);
});

test('rows a temporary keeps: from its first access to its last, rounded up to a power of two', () => {
  const v = loop([nest(assign('a', fld('q'))), nest(assign('b', sum(fld('a', [1, 0, 0]), fld('a', [-1, 0, 0]))))]);
  const d = fusionDelays(v, 0)!;
  assert.equal(d, [[0, 0], [1, 0]]);
  // a's row x is written at iteration x and read up to iteration x + 2: 3 rows live, 4 kept
  assert.is(rollingRows(v, d, 0, 'a'), 4);
});

test('fused nests share one K loop unless something they write is accessed at a K offset', () => {
  assert.ok(levelsJam(hdiff));
  assert.ok(levelsJam(loop([nest(assign('a', fld('q', [0, 0, 1]))), nest(assign('b', fld('a')))])), 'q is only read');
  assert.not.ok(levelsJam(loop([nest(assign('a', fld('q'))), nest(assign('b', fld('a', [0, 0, -1])))])), 'b reads the level of a below');
  assert.not.ok(levelsJam(loop([nest({ ...assign('a', fld('q')), kOffset: 1 } as Stmt), nest(assign('b', fld('a')))])), 'a is written a level up');
  const cond: Stmt = { kind: 'if', cond: { kind: 'lit', value: true, dtype: 'bool' }, then: [assign('b', fld('a'))], else: [], loc: at };
  assert.not.ok(levelsJam(loop([nest(assign('a', fld('q'))), nest(cond)])), 'a conditional store');
});

test('not fused: one nest, FORWARD loops, debug checks, while loops, variable K accesses, horizontal regions', () => {
  assert.is(fusionDelays(loop([nest(assign('a', fld('q')))]), 0), undefined);
  assert.is(fusionDelays(loop([nest(assign('a', fld('q'))), nest(assign('b', fld('a')))], 'FORWARD'), 0), undefined);
  const check: Stmt = { kind: 'check', target: 'a', check: { test: 'nan', action: 'log', program: 'p', stencil: 's' } as never, loc: at };
  assert.is(fusionDelays(loop([nest(assign('a', fld('q')), check), nest(assign('b', fld('a')))]), 0), undefined);
  const loopWhile: Stmt = { kind: 'while', cond: { kind: 'lit', value: false, dtype: 'bool' }, body: [], loc: at };
  assert.is(fusionDelays(loop([nest(assign('a', fld('q'))), nest(loopWhile, assign('b', fld('a')))]), 0), undefined);
  const region: Stmt = { kind: 'region', regions: [], body: [assign('b', fld('a'))], loc: at } as unknown as Stmt;
  assert.is(fusionDelays(loop([nest(assign('a', fld('q'))), nest(region)]), 0), undefined, 'horizontal regions');
  // codegen.fuseRegions: fused (regionVersions.ts tests them once per column), never in one K loop
  const regionRead: Stmt = { kind: 'region', regions: [], body: [assign('b', fld('a', [1, 0, 0]))], loc: at } as unknown as Stmt;
  assert.equal(fusionDelays(loop([nest(assign('a', fld('q'))), nest(assign('c', fld('q')), regionRead)]), 0, true), [[0, 0], [1, 0]], 'with fuseRegions');
  assert.not.ok(levelsJam(loop([nest(assign('a', fld('q'))), nest(region)])), 'regions: no shared K loop');
  // a nest of regions only runs clipped to their box unfused (regionClip.ts): left unfused
  assert.is(fusionDelays(loop([nest(assign('a', fld('q'))), nest(region)]), 0, true), undefined, 'a nest of regions only');
  const vk: Expr = { kind: 'field', name: 'q', offset: [0, 0, 0], kOffset: int(1), dtype: 'float64' } as Expr;
  assert.is(fusionDelays(loop([nest(assign('a', vk)), nest(assign('b', fld('a')))]), 0), undefined);
  assert.is(fusionDelays(loop([nest({ ...assign('a', fld('q')), kVar: int(1) } as Stmt), nest(assign('b', fld('a')))]), 0), undefined);
});

test.run();
