import { existsSync, readdirSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TempProject } from './TempProject.js';

/**
 * orch.config.ts is transpiled once and kept in the project's node_modules/.cache/jiti
 * (core/config/loadConfig.ts); an edit, even one of the same length in the same second,
 * must be read afresh, never served from that cache.
 */

const t = suite('config transpile cache');

const config = (module: string) => `export default { modules: ['${module}'] };\n`;

t('an edited orch.config.ts is read afresh; the transpiled copy is kept in node_modules/.cache', async () => {
  const p = new TempProject('config-cache');
  p.write('orch.config.ts', config('missing1.py'));
  const first = await p.orch(['build']);
  assert.is(first.code, 2, first.stderr);
  assert.match(first.stderr, 'missing1.py');
  const cache = p.path('node_modules/.cache/jiti');
  assert.ok(existsSync(cache) && readdirSync(cache).length > 0, 'the transpiled config is cached');

  p.write('orch.config.ts', config('missing2.py'));
  const second = await p.orch(['build']);
  assert.is(second.code, 2, second.stderr);
  assert.match(second.stderr, 'missing2.py');
  assert.not.match(second.stderr, 'missing1.py', 'the edited config was read, not the cached copy');
});

t('a project without node_modules loads its config without a transpile cache', async () => {
  const p = new TempProject('config-nocache');
  const bare = p.path('bare');
  p.write('bare/orch.config.ts', config('missing3.py'));
  const r = await p.orch(['build', '--config', `${bare}/orch.config.ts`]);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, 'missing3.py');
  assert.not.ok(existsSync(p.path('bare/node_modules')), 'no folder is made beside the config');
});

t.run();
