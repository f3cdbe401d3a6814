import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OrchError } from '../diagnostics.js';
import { axisOffsets } from '../frontend/layoutExternals.js';
import { codePathOfRank, codePaths, edgesOf, parseLayout, type CodePath } from './RankLayout.js';

const t = suite('rank layouts');

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof OrchError) return e.diagnostic.code;
    throw e;
  }
  return 'no error';
}

t('a layout has 1, 4, 6 or 9 distinct code paths, named as NDSL names them', () => {
  assert.equal(codePaths(parseLayout('1x1')), ['A']);
  assert.equal(codePaths(parseLayout('2x2')), ['BL', 'BR', 'TL', 'TR']);
  assert.equal(codePaths(parseLayout('3x3')), ['BL', 'B', 'BR', 'L', 'C', 'R', 'TL', 'T', 'TR']);
  assert.equal(codePaths(parseLayout('6x6')), codePaths(parseLayout('3x3')));
  assert.equal(codePaths(parseLayout('12x12')).length, 9);
  // non-square: 2 ranks along I, 3 along J (and the transpose)
  assert.equal(codePaths(parseLayout('2x3')), ['BL', 'BR', 'L', 'R', 'TL', 'TR']);
  assert.equal(codePaths(parseLayout('3x2')), ['BL', 'B', 'BR', 'TL', 'T', 'TR']);
  assert.equal(codePaths(parseLayout('4x3')).length, 9);
});

t('a layout with one rank along a single axis fails and says why', () => {
  for (const l of ['1x4', '3x1']) {
    try {
      codePaths(parseLayout(l));
      assert.unreachable(l);
    } catch (e) {
      const d = (e as OrchError).diagnostic;
      assert.is(d.code, 'E_LAYOUT_UNSUPPORTED');
      assert.match(d.message, 'both');
      assert.match(d.hint ?? '', 'at least 2 ranks along each axis');
    }
  }
  assert.is(code(() => parseLayout('3by3')), 'E_USAGE_LAYOUT');
  assert.is(code(() => parseLayout('0x3')), 'E_USAGE_LAYOUT');
});

t('any rank of any layout resolves to its code path (x fastest, six tiles)', () => {
  const six = parseLayout('6x6');
  const cases: [number, CodePath][] = [[0, 'BL'], [1, 'B'], [5, 'BR'], [6, 'L'], [14, 'C'], [17, 'R'], [30, 'TL'], [33, 'T'], [35, 'TR'], [36 + 17, 'R'], [5 * 36 + 30, 'TL']];
  for (const [rank, cp] of cases) assert.is(codePathOfRank(six, rank), cp, `rank ${rank}`);
  assert.is(codePathOfRank(parseLayout('1x1'), 4), 'A');
  const twoByThree = parseLayout('2x3');
  assert.equal([0, 1, 2, 3, 4, 5].map((r) => codePathOfRank(twoByThree, r)), ['BL', 'BR', 'L', 'R', 'TL', 'TR']);
  assert.is(code(() => codePathOfRank(six, 216)), 'E_USAGE_RANK');
  assert.is(code(() => codePathOfRank(six, -1)), 'E_USAGE_RANK');
});

t('edges of each code path', () => {
  assert.equal(edgesOf('A'), { west: true, east: true, south: true, north: true });
  assert.equal(edgesOf('BL'), { west: true, east: false, south: true, north: false });
  assert.equal(edgesOf('T'), { west: false, east: false, south: false, north: true });
  assert.equal(edgesOf('C'), { west: false, east: false, south: false, north: false });
  assert.equal(edgesOf('R'), { west: false, east: true, south: false, north: false });
});

const loc = { file: 'm.py', line: 7, col: 5 };
const target = { layout: parseLayout('3x3'), domain: [4, 5, 2] as [number, number, number], halo: 3 };
const ax = (axis: 'I' | 'J', index: number, offset: number) => ({ k: 'axisIndex', axis, index, offset });

t("region externals per code path follow NDSL's axis_offsets (hand-computed)", () => {
  // rank compute domain: i in [3, 6], j in [3, 7]; call on exactly that domain
  const bl = axisOffsets({ codepath: 'BL', target }, [3, 3, 0], [4, 5, 2], loc);
  assert.equal(bl.i_start, ax('I', 0, 0));
  assert.equal(bl.j_start, ax('J', 0, 0));
  assert.equal(bl.i_end, ax('I', -1, 32767), 'not on the east edge: far outside, the region is empty');
  assert.equal(bl.j_end, ax('J', -1, 32767));
  assert.equal(bl.local_is, ax('I', 0, 0));
  assert.equal(bl.local_ie, ax('I', 0, 3), 'the last compute column, I[-1] of this call');
  assert.equal(bl.local_je, ax('J', 0, 4));
  assert.equal(bl.k_start, { k: 'num', value: 0, isInt: true });
  assert.equal(bl.k_end, { k: 'num', value: 1, isInt: true });
  const tr = axisOffsets({ codepath: 'TR', target }, [3, 3, 0], [4, 5, 2], loc);
  assert.equal(tr.i_start, ax('I', 0, -32767));
  assert.equal(tr.j_start, ax('J', 0, -32767));
  assert.equal(tr.i_end, ax('I', 0, 3));
  assert.equal(tr.j_end, ax('J', 0, 4));
  // a call grown by one halo point: the edges are one index further in
  const grown = axisOffsets({ codepath: 'A', target }, [2, 2, 1], [6, 7, 1], loc);
  assert.equal(grown.i_start, ax('I', 0, 1));
  assert.equal(grown.i_end, ax('I', 0, 4));
  assert.equal(grown.j_end, ax('J', 0, 5));
  assert.equal(grown.k_start, { k: 'num', value: 1, isInt: true });
  assert.equal(grown.k_end, { k: 'num', value: 1, isInt: true });
  const c = axisOffsets({ codepath: 'C', target }, [3, 3, 0], [4, 5, 2], loc);
  for (const k of ['i_start', 'i_end', 'j_start', 'j_end'] as const) assert.is((c[k] as { offset: number }).offset, k.endsWith('start') ? -32767 : 32767);
});

t('an unknown call origin makes only the values that depend on it opaque', () => {
  const runtime = axisOffsets({ codepath: 'BL', target }, [null, null, null], [null, null, null], loc);
  assert.is(runtime.i_start.k, 'opaque');
  assert.match((runtime.i_start as { why: string }).why, 'm.py:7');
  assert.equal(runtime.i_end, ax('I', -1, 32767), 'an edge the rank is not on needs no origin');
  assert.is(runtime.k_end.k, 'opaque');
});

t.run();
