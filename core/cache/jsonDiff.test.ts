import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonDifferences } from './jsonDiff.js';

test('jsonDifferences names the changed paths, before and after', () => {
  const a = { self: { items: { '._damp': { domain: [8, 7, 4] }, '._n': { value: { int: 2 } } } } };
  const b = { self: { items: { '._damp': { domain: [8, 7, 5] }, '._n': { value: { int: 2 } }, '.x': 1 } } };
  assert.equal(jsonDifferences(a, b), ['self.items._damp.domain: [8,7,4] -> [8,7,5]', 'self.items.x: absent -> 1']);
  assert.equal(jsonDifferences(a, a), []);
  assert.equal(jsonDifferences({ k: [1, 2, 3, 4] }, { k: 5 }, 1), ['k: [1,2,3,4] -> 5']);
});

test.run();
