import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { orchCodeHash, orchVersion } from '../core/cache/hashing.js';
import { REPO, stencilModule, TempProject } from './TempProject.js';

/**
 * dist/bin/orch.js is a bundle (scripts/bundleCli.ts) with its own copy of the code, beside
 * the compiled modules the package API and in-process callers use. Both must key the cache
 * alike, or an entry built through one is a miss (or worse, a stale hit) through the other.
 */

test('dist/bin/orch.js is the bundle: it imports its chunks, not the compiled modules under dist/', () => {
  const src = readFileSync(path.join(REPO, 'dist/bin/orch.js'), 'utf8');
  assert.match(src, /from "\.\/chunks\/[\w-]+\.js"/, 'the bundle loads its chunks');
  assert.not.match(src, /from ["']\.\.\/(cli|core|plugins|presets)\//, 'no import of the unbundled modules');
});

test('code the bundle carries finds files from the package root, not from its own path', () => {
  // the bundle moves code to dist/bin/chunks/: `new URL('./x.js', import.meta.url)` in core/
  // would point there (libraryCheck's probe did). These uses are safe, each for its reason.
  const safe = new Set([
    'bin/orch.ts', // dist/bin/orch.js stays at dist/bin/ in the bundle: ../../package.json
    'core/config/loadConfig.ts', // Node's require cache and jiti's base for resolving packages
    'core/cache/hashing.ts', // PACKAGE_ROOT: searched upwards for package.json
  ]);
  const uses: string[] = [];
  for (const dir of ['bin', 'cli', 'core', 'plugins', 'presets']) {
    for (const f of readdirSync(path.join(REPO, dir), { recursive: true, encoding: 'utf8' })) {
      if (!f.endsWith('.ts') || f.endsWith('.test.ts') || f.endsWith('.d.ts')) continue;
      const rel = path.join(dir, f);
      if (/import\.meta\.(url|dirname|filename)|__dirname/.test(readFileSync(path.join(REPO, rel), 'utf8'))) uses.push(rel);
    }
  }
  assert.equal(uses.filter((u) => !safe.has(u)), [], 'resolve packaged files from PACKAGE_ROOT (core/cache/hashing.ts)');
  assert.equal(uses.sort(), [...safe].sort(), 'the safe list names only files that still use it');
});

test('the bundled CLI keys the cache with the version the compiled code computes', async () => {
  const p = new TempProject('bundled-version');
  p.write('m.py', stencilModule('s', 'w * a'));
  const r = await p.orch(['build', 'm.py', '--json']);
  assert.is(r.code, 0, r.stderr);
  const root = p.path('.gt_cache_A/m/s');
  const { key } = JSON.parse(readFileSync(path.join(root, 'latest.json'), 'utf8')) as { key: string };
  const info = JSON.parse(readFileSync(path.join(root, key, 'build-info.json'), 'utf8')) as { inputs: { orch: string } };
  assert.is(info.inputs.orch, orchVersion());
  assert.ok(orchVersion().endsWith(`+${orchCodeHash()}`), 'in-process, the version hashes the compiled code');
});

test.run();
