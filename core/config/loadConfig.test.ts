import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OrchError } from '../diagnostics.js';
import { validateConfig } from './loadConfig.js';
import type { OrchConfig } from './types.js';

function codeOf(cfg: unknown): string | null {
  try {
    validateConfig(cfg as OrchConfig, '/p/orch.config.ts');
    return null;
  } catch (e) {
    if (e instanceof OrchError) return e.diagnostic.code;
    throw e;
  }
}

test("codegen.tile takes [ti, tj], [ti, tj, tk], false or 'auto'", () => {
  assert.is(codeOf({ codegen: { tile: 'auto' } }), null);
  assert.is(codeOf({ codegen: { tile: [8, 8] } }), null);
  assert.is(codeOf({ codegen: { tile: [8, 8, 16] } }), null);
  assert.is(codeOf({ codegen: { tile: false } }), null);
});

test('a bad codegen.tile is a config error with a hint, not a crash later', () => {
  for (const tile of [[8], [0, 8], [8, 2.5], [8, 8, 8, 8], 'big', true]) assert.is(codeOf({ codegen: { tile } }), 'E_CONFIG_VALUE', JSON.stringify(tile));
});

test.run();
