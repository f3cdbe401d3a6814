import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BuildCache, type EntryInputs, type HistoryRecord } from './BuildCache.js';
import { EntryCache, type EntryTransaction } from './EntryCache.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function project() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'orch-entrycache-'));
  const src = path.join(root, 'mod.py');
  writeFileSync(src, 'x = 1\n');
  const inputs: EntryInputs = {
    module: 'mod.py',
    modulePath: src,
    entry: 'step',
    codepath: 'A',
    externals: {},
    defines: {},
    preset: 'cpu',
    compiler: { cxx: 'g++', identity: 'g++ 12', flags: [] },
    codegen: {},
    plugins: [],
    orch: '0',
    native: 'h',
  };
  const cache = new EntryCache(new BuildCache(root));
  const read = { files: new Map([[src, 'x = 1\n']]), env: new Map<string, string | null>(), absent: [] };
  /** What codegen, compile and emit do to the transaction: stage, write, commit. */
  const build = async (tx: EntryTransaction) => {
    const staging = tx.staging();
    writeFileSync(path.join(staging, 'lib.so'), 'binary');
    const key = tx.key(read);
    const infoText = JSON.stringify({ key, module: inputs.module, entry: inputs.entry, symbol: 's', library: 'lib.so', created: 'now', inputs, sources: {}, checksums: { 'lib.so': sha('binary') }, warnings: [], timings: {}, command: [] });
    writeFileSync(path.join(staging, 'build-info.json'), infoText);
    return tx.commit(read, infoText);
  };
  return { root, src, inputs, cache, build };
}

test('a miss is built once under the lock, committed, recorded; the next fetch is a hit that builds nothing', async () => {
  const { cache, inputs, build } = project();
  const records: HistoryRecord['result'][] = [];
  const commits: string[] = [];
  cache.hooks.record.tap('t', (_ref, r) => void records.push(r.result));
  cache.hooks.commit.tap('t', (_ref, dir) => void commits.push(dir));
  let builds = 0;
  const first = await cache.fetch(inputs, async (tx) => (builds++, build(tx)));
  assert.is(first.status, 'built');
  if (first.status !== 'built') return;
  assert.is(first.reason, 'no cache entry yet');
  assert.is(first.dir, first.value, 'the outcome names the folder the commit made');
  assert.is(path.basename(first.dir), first.key);
  assert.equal(commits, [first.dir]);
  const second = await cache.fetch(inputs, async (tx) => (builds++, build(tx)));
  assert.is(second.status, 'hit');
  if (second.status === 'hit') assert.is(second.hit.key, first.key);
  assert.is(builds, 1);
  assert.equal(records, ['miss', 'hit']);
  assert.not.ok(existsSync(path.join(first.dir, '..', '.lock')), 'the lock is released');
});

test('a validate tap turns a hit into a miss with its reason', async () => {
  const { cache, inputs, build } = project();
  await cache.fetch(inputs, build);
  cache.hooks.validate.tap('layout', (info) => (info.inputs.codepath === 'A' ? 'entry was built for another layout' : undefined));
  const got = await cache.fetch(inputs, build, { lookupOnly: true });
  assert.equal(got, { status: 'miss', reason: 'entry was built for another layout' });
});

test('a failed build leaves no staging folder, records the error and releases the lock', async () => {
  const { cache, inputs, build } = project();
  const records: HistoryRecord[] = [];
  cache.hooks.record.tap('t', (_ref, r) => void records.push(r));
  const got = await cache.fetch(inputs, async (tx) => {
    writeFileSync(path.join(tx.staging(), 'half.cpp'), '');
    throw new Error('g++ died');
  });
  assert.is(got.status, 'error');
  if (got.status === 'error') assert.is((got.error as Error).message, 'g++ died');
  assert.equal(records.map((r) => [r.result, r.reason]), [['error', 'g++ died']]);
  const entryRoot = cache.store.entryRoot(inputs.module, inputs.entry);
  assert.equal(readdirSync(entryRoot).filter((n) => n.startsWith('.staging-') || n === '.lock'), []);
  assert.is((await cache.fetch(inputs, build)).status, 'built', 'the next fetch takes the lock and builds');
});

test('a build that returns without committing is an error, not a built entry', async () => {
  const { cache, inputs } = project();
  const got = await cache.fetch(inputs, async (tx) => void tx.staging());
  assert.is(got.status, 'error');
  if (got.status === 'error') assert.match((got.error as Error).message, 'ended without committing its cache entry');
});

test.run();
