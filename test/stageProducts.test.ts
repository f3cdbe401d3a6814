import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveConfig } from '../cli/toolset.js';
import { Compiler } from '../core/Compiler.js';
import { stencilModule } from './TempProject.js';

/** A stage whose input is missing stops the entry with an internal error; the Compiler never reports it built. */
const products = suite('stage products');

products('without the compile stage, emit finds no library: an internal error, not a build', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-products-'));
  const file = path.join(dir, 'm.py');
  writeFileSync(file, stencilModule('s', 'w * a'));
  const config = await resolveConfig({ configFile: null, cwd: dir });
  config.cacheRoot = dir;
  const stages = config.stages;
  config.stages = () => stages().filter((p) => p.name !== 'orch:compile');
  const compiler = new Compiler(config, { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [file], externals: {}, defines: {}, mode: 'build' });
  assert.is(r.entries.length, 1);
  const [e] = r.entries;
  assert.is(e.status, 'error', 'never reported built');
  assert.is(e.library, undefined);
  assert.is(e.errors[0]?.code, 'E_INTERNAL');
  assert.match(e.errors[0].message, "emit needs the 'compiled' product of m.py:s");
  // nothing was committed and the staging folder is gone
  const again = await compiler.build({ modules: [file], externals: {}, defines: {}, mode: 'lookup' });
  assert.is(again.entries[0].status, 'miss');
  const cacheDir = readdirSync(dir).find((n) => n.startsWith('.gt_cache'));
  const staged = cacheDir ? readdirSync(path.join(dir, cacheDir), { recursive: true }).map(String).filter((n) => n.includes('.staging-')) : [];
  assert.equal(staged, []);
});

products.run();
