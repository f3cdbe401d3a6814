import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BuildCache, moduleSegments, type EntryInputs } from './BuildCache.js';

const base: EntryInputs = {
  module: 'pkg/mod.py',
  modulePath: '/p/pkg/mod.py',
  entry: 'step',
  codepath: 'A',
  externals: { N: { k: 'num', value: 2, isInt: true } },
  defines: { n_sub: 4 },
  preset: 'cpu',
  compiler: { cxx: 'g++', identity: 'g++ 12.2.0', flags: ['-O3'] },
  codegen: { loopOrder: 'IJK', openmp: true, lineDirectives: true },
  plugins: [{ name: 'p', version: '1' }],
  orch: '0.1.0+abc',
  native: 'h1',
};

/** A build-info.json as emit writes it (the schema the cache checks on read). */
function info(key: string, inputs: EntryInputs, checksums: Record<string, string> = {}): string {
  return JSON.stringify({ key, module: inputs.module, entry: inputs.entry, symbol: 'orch_step', library: 'lib.so', created: 'now', inputs, sources: {}, checksums: { 'lib.so': sha('binary'), ...checksums }, warnings: [], timings: {}, command: [] });
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

test('every input of the key changes it', () => {
  const cache = new BuildCache(os.tmpdir());
  const k0 = cache.optionsKey(base);
  const variants: Partial<EntryInputs>[] = [
    { module: 'pkg/other.py' },
    { modulePath: '/q/pkg/mod.py' },
    { entry: 'other' },
    { codepath: 'BL' },
    { externals: { N: { k: 'num', value: 3, isInt: true } } },
    { defines: { n_sub: 5 } },
    { preset: 'cpu-native' },
    { compiler: { ...base.compiler, flags: ['-O2'] } },
    { compiler: { ...base.compiler, identity: 'g++ 13.1.0' } },
    { compiler: { ...base.compiler, cxx: 'clang++' } },
    { codegen: { loopOrder: 'KJI', openmp: true, lineDirectives: true } },
    { plugins: [{ name: 'p', version: '2' }] },
    { passes: { fusion: false } },
    { debug: { enabled: true } },
    { orch: '0.1.1+abc' },
    { native: 'h2' },
  ];
  const keys = new Set([k0]);
  for (const v of variants) {
    const k = cache.optionsKey({ ...base, ...v });
    assert.is.not(k, k0, `changing ${Object.keys(v)[0]} must change the key`);
    keys.add(k);
  }
  assert.is(keys.size, variants.length + 1);
  assert.is(cache.optionsKey({ ...base }), k0, 'equal inputs give equal keys');
});

test('the key covers the content of every source file read', () => {
  const cache = new BuildCache(os.tmpdir());
  const files = new Map([
    ['/p/mod.py', 'x = 1\n'],
    ['/p/consts.py', 'G = 9.8\n'],
  ]);
  const k0 = cache.keyFor('opts', files);
  assert.is.not(cache.keyFor('opts', new Map([...files, ['/p/consts.py', 'G = 9.81\n']])), k0);
  assert.is.not(cache.keyFor('opts', new Map([['/p/mod.py', 'x = 1\n']])), k0);
  assert.is.not(cache.keyFor('opts2', files), k0);
});

test('the key covers every environment variable module code read, set or unset', () => {
  const cache = new BuildCache(os.tmpdir());
  const files = new Map([['/p/consts.py', 'import os\n']]);
  const k0 = cache.keyFor('opts', files);
  const gfs = cache.keyFor('opts', files, new Map([['PACE_CONSTANTS', 'GFS']]));
  assert.is.not(gfs, k0);
  assert.is.not(cache.keyFor('opts', files, new Map([['PACE_CONSTANTS', 'GEOS']])), gfs);
  assert.is.not(cache.keyFor('opts', files, new Map([['PACE_CONSTANTS', null]])), gfs, 'unset is not the same as set');
  assert.is(cache.keyFor('opts', files, new Map([['PACE_CONSTANTS', 'GFS']])), gfs);
});

test('a lookup misses when an environment variable the build read has changed', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'orch-cache-env-'));
  const src = path.join(root, 'consts.py');
  writeFileSync(src, 'import os\n');
  const inputs = { ...base, modulePath: src };
  const build = (env: Record<string, string>) => new BuildCache(root, 'A', env);
  const first = build({ PACE_CONSTANTS: 'GFS' }).lookup(inputs);
  const staging = build({}).staging(inputs.module, inputs.entry);
  const key = build({}).keyFor(first.optionsKey, new Map([[src, 'import os\n']]), new Map([['PACE_CONSTANTS', 'GFS']]));
  writeFileSync(path.join(staging, 'lib.so'), 'binary');
  writeFileSync(path.join(staging, 'build-info.json'), info(key, inputs));
  build({}).commit(staging, { optionsKey: first.optionsKey, inputs, files: { [src]: createHash('sha256').update('import os\n').digest('hex') }, env: { PACE_CONSTANTS: 'GFS' }, key });
  assert.is(build({ PACE_CONSTANTS: 'GFS' }).lookup(inputs).status, 'hit');
  const changed = build({ PACE_CONSTANTS: 'GEOS' }).lookup(inputs);
  assert.is(changed.status, 'miss');
  if (changed.status === 'miss') assert.is(changed.reason, 'environment variable PACE_CONSTANTS changed');
  const unset = build({}).lookup(inputs);
  assert.is(unset.status, 'miss');
});

test('a lookup explains misses and detects changed files', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'orch-cache-'));
  const src = path.join(root, 'mod.py');
  writeFileSync(src, 'x = 1\n');
  const inputs = { ...base, modulePath: src };
  const cache = new BuildCache(root);
  const miss = cache.lookup(inputs);
  assert.is(miss.status, 'miss');
  if (miss.status === 'miss') assert.is(miss.reason, 'no cache entry yet');
  const staging = cache.staging(base.module, base.entry);
  writeFileSync(path.join(staging, 'lib.so'), 'binary');
  const key = cache.keyFor(miss.optionsKey, new Map([[src, 'x = 1\n']]));
  writeFileSync(path.join(staging, 'build-info.json'), info(key, inputs));
  cache.commit(staging, { optionsKey: miss.optionsKey, inputs, files: { [src]: '0'.repeat(64) }, key });
  const second = cache.lookup(inputs);
  assert.is(second.status, 'miss');
  if (second.status === 'miss') assert.match(second.reason, 'mod.py changed');
  const third = cache.lookup({ ...inputs, defines: { n_sub: 8 } });
  assert.is(third.status, 'miss');
  if (third.status === 'miss') assert.is(third.reason, 'defines changed');
});

test('a manifest whose files do not include the module being built is a miss', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'orch-cache-abs-'));
  const src = path.join(root, 'mod.py');
  writeFileSync(src, 'x = 1\n');
  const other = path.join(root, 'other.py');
  writeFileSync(other, 'x = 1\n');
  const inputs = { ...base, modulePath: src };
  const cache = new BuildCache(root);
  const miss = cache.lookup(inputs);
  const staging = cache.staging(inputs.module, inputs.entry);
  const key = cache.keyFor(miss.optionsKey, new Map([[other, 'x = 1\n']]));
  writeFileSync(path.join(staging, 'lib.so'), 'binary');
  writeFileSync(path.join(staging, 'build-info.json'), info(key, inputs));
  // a manifest that claims these options but read another file (as written before the key held the absolute path)
  cache.commit(staging, { optionsKey: miss.optionsKey, inputs, files: { [other]: createHash('sha256').update('x = 1\n').digest('hex') }, key });
  const found = cache.lookup(inputs);
  assert.is(found.status, 'miss');
  if (found.status === 'miss') assert.is(found.reason, `entry was built from another file than ${src}`);
});

test('cache folders are readable and never escape the root', () => {
  assert.equal(moduleSegments('pkg/sub/mod.py'), ['pkg', 'sub', 'mod']);
  assert.equal(moduleSegments('../../etc/passwd.py'), ['_up', '_up', 'etc', 'passwd']);
  const cache = new BuildCache('/tmp/root');
  const dir = cache.entryRoot('../../x.py', '../evil');
  assert.ok(dir.startsWith('/tmp/root/.gt_cache_A/'), dir);
  assert.not.match(dir, /\/\.\.\//);
});

test.run();
