import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { MemoryReport } from './EntryBuild.js';
import { memoryBytes } from './memoryBytes.js';

const bytes = suite('memoryBytes');

const field = (name: string, axes: string, role: string, shape: string[], pool?: { offset: string }) => ({
  name,
  role,
  dtype: 'float64',
  axes,
  bytesPerElement: 8,
  shape,
  pooled: !!pool,
  offset: pool?.offset,
  zeroFill: !!pool,
  storage: 'host' as const,
});

// two pooled temporaries in one arena, the second aligned to 64 bytes (as plugins/pooling places them)
const aligned = '((((0 + ((((1 * q.shape[0]) * q.shape[1]) * q.shape[2]) * 8)) + 63) // 64) * 64)';
const report: MemoryReport = {
  arrays: [
    field('q', 'IJK', 'arg', ['q.shape[0]', 'q.shape[1]', 'q.shape[2]']),
    field('total', 'IJ', 'arg', ['total.shape[0]', 'total.shape[1]']),
    field('fx', 'IJK', 'temporary', ['q.shape[0]', 'q.shape[1]', 'q.shape[2]'], { offset: '0' }),
    field('fy', 'IJK', 'temporary', ['q.shape[0]', '(q.shape[1] + 1)', 'q.shape[2]'], { offset: aligned }),
  ],
  totals: {},
  peak: { temporaryArenaBytes: `(${aligned} + ((((1 * q.shape[0]) * (q.shape[1] + 1)) * q.shape[2]) * 8))`, transientArenaBytes: 'max(0, (q.shape[2] * 8))' },
};

bytes('every array and arena in bytes for a domain, padding included', () => {
  const m = memoryBytes(report, [3, 3, 3]);
  assert.equal(
    m.arrays.map((a) => [a.name, a.shape, a.bytes]),
    [
      ['q', [3, 3, 3], 216],
      ['total', [3, 3], 72],
      ['fx', [3, 3, 3], 216],
      ['fy', [3, 4, 3], 288],
    ],
  );
  // fx's 216 bytes are padded to 256 before fy
  assert.equal(m.totals, { argBytes: 288, temporaryArenaBytes: 256 + 288, transientArenaBytes: 24, unpooledBytes: 0, orchBytes: 256 + 288 + 24, totalBytes: 288 + 256 + 288 + 24 });
});

bytes('a size the domain does not decide stays unknown, and so do the totals it enters', () => {
  const odd: MemoryReport = { ...report, arrays: [...report.arrays, { ...field('c', 'IJK', 'temporary', ['n_levels', 'q.shape[1]', 'q.shape[2]']), pooled: false }] };
  const m = memoryBytes(odd, [3, 3, 3]);
  assert.is(m.arrays[4].bytes, undefined);
  assert.is(m.totals.unpooledBytes, undefined);
  assert.is(m.totals.totalBytes, undefined);
  assert.is(m.totals.argBytes, 288);
});

bytes.run();
