import { existsSync, writeFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stencilModule, TempProject } from './TempProject.js';

/** The cache root (issue 12, item 11): absent is nothing to clean; a file is a coded error for every command. */

const root = suite('cache root');

root('orch clean with a cache root that does not exist has nothing to clean', async () => {
  const p = new TempProject('cacheroot');
  const missing = p.path('no/such/cache');
  const r = await p.orch(['clean'], { GT_CACHE_ROOT: missing });
  assert.is(r.stderr, '');
  assert.is(r.stdout, `nothing to clean: the cache root ${missing} does not exist`);
  assert.is(r.code, 0);
  assert.not.ok(existsSync(missing), 'clean creates nothing');
});

root('a cache root that is a file is E_CACHE_ROOT for clean, info, build and run', async () => {
  const p = new TempProject('cacheroot');
  p.write('m.py', stencilModule('s', 'a * w'));
  const file = p.path('cache-file');
  writeFileSync(file, 'not a folder');
  const commands = [['clean'], ['info'], ['build', 'm.py'], ['run', 'm.py:s', '--mode', 'build-and-run', '--shape', '2,2,2', '--scalars', '{"w": 1.0}']];
  for (const [rootPath, kind] of [[file, 'a file'], [`${file}/below`, 'a path through a file']]) {
    for (const args of commands) {
      const r = await p.orch(args, { GT_CACHE_ROOT: rootPath, NO_COLOR: '1' });
      assert.is(r.stderr.trimEnd(), `error E_CACHE_ROOT: the cache root ${rootPath} (GT_CACHE_ROOT=${rootPath}) is ${kind}, not a folder\nhint: point GT_CACHE_ROOT (or cacheRoot in orch.config.ts) at a folder, or remove what is in the way`, `orch ${args[0]}`);
      assert.is(r.code, 1, `orch ${args[0]}`);
    }
  }
});

root.run();
