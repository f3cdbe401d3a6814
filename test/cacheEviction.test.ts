import { mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { folderBytes } from '../core/cache/cacheUsage.js';
import { STENCIL_HEADER, TempProject } from './TempProject.js';

/** `orch info --stats` (like ccache -s) and `orch clean --older-than/--max-size` (LRU eviction). */

const cache = suite('cache statistics and eviction');

const DAY = 86400e3;

cache('stats count entries, variants, hits, misses and bytes; clean evicts by last use and spares locked entries', async () => {
  const p = new TempProject('evict');
  p.write('e.py', `${STENCIL_HEADER}\n\ndef scale(a: FloatField, b: FloatField):\n    from __externals__ import SCALE\n    with computation(PARALLEL), interval(...):\n        b = SCALE * a\n`);
  const build = async (scale: number) => {
    const r = await p.orch(['build', 'e.py', '--json', '--externals', JSON.stringify({ SCALE: scale })]);
    assert.is(r.code, 0, r.stderr);
    return JSON.parse(r.stdout).entries[0] as { key: string; dir: string; status: string };
  };
  const [one, two, three] = [await build(1), await build(2), await build(3)];
  assert.is((await build(1)).status, 'hit');

  const stats = JSON.parse((await p.orch(['info', '--stats', '--json'])).stdout);
  assert.is(stats.entries, 1);
  assert.is(stats.variants, 3);
  assert.is(stats.hits, 1);
  assert.is(stats.misses, 3);
  assert.is(stats.bytes, folderBytes(p.path('.gt_cache_A')));
  assert.equal(stats.modules.map((m: { module: string; variants: number }) => [m.module, m.variants]), [['e', 3]]);
  assert.is(stats.per_entry[0].entry, 'e/scale');
  assert.ok(stats.per_entry[0].bytes >= folderBytes(one.dir) * 3, 'an entry counts its variants');
  const text = await p.orch(['info', '--stats']);
  assert.match(text.stdout, /^variants\s+3$/m);
  assert.match(text.stdout, /^hits\s+1 \(25\.0% of lookups\)$/m);
  assert.match(text.stdout, new RegExp(`^cache size\\s+.* \\(${stats.bytes} bytes\\)$`, 'm'));

  // ages: one was used 20 days ago but is hit again now; two 10 days ago; three 3 days ago
  const age = (dir: string, days: number) => utimesSync(dir, new Date(Date.now() - days * DAY), new Date(Date.now() - days * DAY));
  age(one.dir, 20);
  age(two.dir, 10);
  age(three.dir, 3);
  assert.is((await build(1)).status, 'hit');
  assert.ok(Date.now() - statSync(one.dir).mtimeMs < DAY, 'a hit records the last use');

  const old = await p.orch(['clean', '--older-than', '7d', '--json']);
  assert.is(old.code, 0, old.stderr);
  const oldR = JSON.parse(old.stdout);
  assert.equal(oldR.removed.map((r: { key: string; why: string }) => [r.key, r.why]), [[two.key, 'age']]);
  assert.is(oldR.freed_bytes, oldR.bytes_before - oldR.bytes_after);

  // an entry whose lock a live build holds is never touched
  mkdirSync(path.join(path.dirname(one.dir), '.lock'));
  writeFileSync(path.join(path.dirname(one.dir), '.lock', 'owner.json'), JSON.stringify({ pid: process.pid, host: os.hostname(), time: Date.now() }));
  const locked = JSON.parse((await p.orch(['clean', '--max-size', '1', '--json'])).stdout);
  assert.equal(locked.removed, []);
  assert.equal(locked.locked, ['A:e/scale']);

  // the least recently used variant goes first, and only as many as the limit needs
  const { rmSync } = await import('node:fs');
  rmSync(path.join(path.dirname(one.dir), '.lock'), { recursive: true });
  const before = folderBytes(p.path('.gt_cache_A'));
  const fit = await p.orch(['clean', '--max-size', String(before - 1)]);
  assert.is(fit.code, 0, fit.stderr);
  assert.match(fit.stdout, `removed e/scale ${three.key.slice(0, 12)}`);
  assert.match(fit.stdout, /removed 1 variant\(s\), /);
  assert.is((await build(1)).status, 'hit', 'the recently used variant stays');
  const rebuilt = await build(3);
  assert.is(rebuilt.status, 'miss', 'an evicted variant is rebuilt');
});

cache('--max-size and --older-than that orch cannot read are usage errors', async () => {
  const p = new TempProject('evict-usage');
  const size = await p.orch(['clean', '--max-size', '5x']);
  assert.is(size.code, 2);
  assert.is(size.stderr.trim(), "error E_USAGE_SIZE: --max-size '5x' is not a size\nhint: write a number with an optional unit: 500M, 2G, 64Ki (K, M, G, T are powers of 1000; Ki, Mi, Gi, Ti of 1024)");
  const age = await p.orch(['clean', '--older-than', '7']);
  assert.is(age.code, 2);
  assert.is(age.stderr.trim(), "error E_USAGE_AGE: --older-than '7' is not a duration\nhint: write a number and a unit: 45s, 30m, 12h, 7d or 2w");
});

cache('hits and misses from concurrent processes are all counted', async () => {
  const p = new TempProject('stats-concurrent');
  p.write('m.py', `${STENCIL_HEADER}\n\ndef s(a: FloatField, b: FloatField, w: Float):\n    with computation(PARALLEL), interval(...):\n        b = w * a\n`);
  assert.is((await p.orch(['build', 'm.py', '--quiet'])).code, 0);
  // eight processes look the entry up at once, each appending to the same history
  const runs = await Promise.all(Array.from({ length: 8 }, () => p.orch(['build', 'm.py', '--quiet'])));
  for (const r of runs) assert.is(r.code, 0, r.stderr);
  const stats = JSON.parse((await p.orch(['info', '--stats', '--json'])).stdout);
  assert.is(stats.misses, 1);
  assert.is(stats.hits, 8);
});

cache('cache.maxSize in the config evicts least recently used variants after a build, like ccache -M', async () => {
  const p = new TempProject('maxsize');
  p.write('e.py', `${STENCIL_HEADER}\n\ndef scale(a: FloatField, b: FloatField):\n    from __externals__ import SCALE\n    with computation(PARALLEL), interval(...):\n        b = SCALE * a\n`);
  const build = async (scale: number) => {
    const r = await p.orch(['build', 'e.py', '--json', '--externals', JSON.stringify({ SCALE: scale })]);
    assert.is(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as { entries: { key: string; dir: string; status: string }[]; evicted?: { key: string }[] };
  };
  const one = (await build(1)).entries[0];
  const two = (await build(2)).entries[0];
  utimesSync(one.dir, new Date(Date.now() - DAY), new Date(Date.now() - DAY));
  // room for the two variants and half of a third
  const limit = folderBytes(p.path('.gt_cache_A')) + Math.floor(folderBytes(two.dir) / 2);
  p.write('orch.config.ts', `export default { cache: { maxSize: ${limit} } };\n`);
  const hit = await build(2);
  assert.is(hit.evicted, undefined, 'a build of hits adds nothing and evicts nothing');
  const third = await build(3);
  assert.equal(third.evicted?.map((v) => v.key), [one.key], 'the least recently used variant made room');
  assert.ok(folderBytes(p.path('.gt_cache_A')) <= limit);
  const text = await p.orch(['build', 'e.py', '--externals', '{"SCALE": 4}']);
  assert.match(text.stderr, /note: the cache was over cache.maxSize \(.+\): evicted 1 least recently used variant\(s\), /);

  p.write('orch.config.ts', "export default { cache: { maxSize: '5x' } };\n");
  const bad = await p.orch(['build', 'e.py']);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, 'cache.maxSize');
  assert.match(bad.stderr, "cache: { maxSize: '2G' }");
});

cache.run();
