import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveConfig } from '../cli/toolset.js';
import { Compiler } from '../core/Compiler.js';
import type { ResolvedConfig } from '../core/config/types.js';

/**
 * Config options that change the generated library are part of the cache key: a build with
 * a pass turned off, or with the debug checkers on, never reuses the library of a build
 * without them (it did: `orch build --debug` after `orch build` was a hit, and ran no checks).
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const file = path.resolve(here, '../../fixtures/bench/vertical_solver.py');
const keys = suite('config options in the cache key');

async function build(config: ResolvedConfig): Promise<{ status: string; key?: string }> {
  const c = new Compiler(config, { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await c.build({ modules: [file], entry: 'vertical_solver', externals: {}, defines: {}, mode: 'build' });
  assert.is(r.errors.length, 0);
  return { status: r.entries[0].status, key: r.entries[0].key };
}

keys('a pass turned off and the debug checkers turned on are misses; the same options again are hits', async () => {
  const base = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-keys-')) });
  base.cacheRoot = mkdtempSync(path.join(os.tmpdir(), 'orch-keys-cache-'));
  const plain = await build(base);
  assert.is(plain.status, 'built');
  const noSweep = await build({ ...base, passes: { ...base.passes, sweepFusion: false } });
  assert.is(noSweep.status, 'built', 'turning sweepFusion off must not reuse the library built with it');
  assert.is.not(noSweep.key, plain.key);
  const debug = await build({ ...base, debug: { ...base.debug, enabled: true } });
  assert.is(debug.status, 'built', 'turning the debug checkers on must not reuse the library built without them');
  assert.is((await build(base)).status, 'hit');
  assert.is((await build({ ...base, passes: { ...base.passes, sweepFusion: false } })).status, 'hit');
});

keys.run();
