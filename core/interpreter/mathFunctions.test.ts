import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { roundAwayFromZero, roundHalfEven } from './mathFunctions.js';

// expected values printed by numpy 1.26: np.round(x) and np.copysign(np.floor(np.abs(x) + 0.5), x)
const CASES: [number, number, number][] = [
  [2.5, 2, 3],
  [-2.5, -2, -3],
  [3.5, 4, 4],
  [-3.5, -4, -4],
  [0.5, 0, 1],
  [-0.5, -0, -1],
  [1.5, 2, 2],
  [0.49999999999999994, 0, 1],
  [-0.4, -0, -0],
  [2.6, 3, 3],
  [-2.6, -3, -3],
  [4503599627370497, 4503599627370497, 4503599627370498],
];

test('round sends halfway cases to even and round_away_from_zero away from zero, bit for bit as GT4Py\'s numpy backend', () => {
  for (const [x, even, away] of CASES) {
    assert.ok(Object.is(roundHalfEven(x), even), `round(${x}) = ${roundHalfEven(x)}, numpy gives ${even}`);
    assert.ok(Object.is(roundAwayFromZero(x), away), `round_away_from_zero(${x}) = ${roundAwayFromZero(x)}, numpy gives ${away}`);
  }
  assert.ok(Number.isNaN(roundHalfEven(NaN)) && Number.isNaN(roundAwayFromZero(NaN)));
});

test.run();
