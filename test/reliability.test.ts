import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cacheWriteError } from '../core/cache/BuildCache.js';
import { OrchError } from '../core/diagnostics.js';

/** The cache under concurrency and faults: nothing lost, nothing half-written ever loaded. */

const here = path.dirname(fileURLToPath(import.meta.url));
const orchBin = path.resolve(here, '../bin/orch.js');
const HEADER = 'from gt4py.cartesian.gtscript import PARALLEL, computation, interval\nfrom ndsl.dsl.typing import Float, FloatField\n';

function project(n: number, tag = 's'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-rel-'));
  for (let i = 0; i < n; i++) {
    writeFileSync(
      path.join(dir, `m${i}.py`),
      `${HEADER}\n\ndef ${tag}${i}(a: FloatField, b: FloatField, w: Float):\n    with computation(PARALLEL), interval(...):\n        b = a * w + ${i}.0\n`,
    );
  }
  return dir;
}

function orch(args: string[], cwd: string, env: Record<string, string> = {}) {
  return execa(process.execPath, [orchBin, ...args], { cwd, env: { GT_CACHE_ROOT: cwd, ...env }, reject: false });
}

function entryDirs(root: string, mod: string, entry: string): string[] {
  const d = path.join(root, '.gt_cache_A', mod, entry);
  return existsSync(d) ? readdirSync(d) : [];
}

function historyOf(root: string, mod: string, entry: string): { result: string; reason?: string }[] {
  const f = path.join(root, '.gt_cache_A', mod, entry, 'history.jsonl');
  return readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

const rel = suite('reliability');

rel('8 concurrent builds of the same modules compile each entry once', async () => {
  const dir = project(2);
  const runs = await Promise.all(Array.from({ length: 8 }, () => orch(['build', 'm0.py', 'm1.py', '--json'], dir)));
  for (const r of runs) assert.is(r.exitCode, 0, r.stderr);
  for (let i = 0; i < 2; i++) {
    const h = historyOf(dir, `m${i}`, `s${i}`);
    assert.is(h.length, 8, 'every process recorded its result');
    assert.is(h.filter((x) => x.result === 'miss').length, 1, `m${i} compiled exactly once`);
    assert.is(h.filter((x) => x.result === 'hit').length, 7);
    const keys = entryDirs(dir, `m${i}`, `s${i}`).filter((n) => /^[0-9a-f]{64}$/.test(n));
    assert.is(keys.length, 1);
    assert.not.ok(entryDirs(dir, `m${i}`, `s${i}`).some((n) => n.startsWith('.staging') || n === '.lock'), 'no staging folder or lock left behind');
  }
});

rel('8 concurrent builds of different modules all succeed', async () => {
  const dir = project(8);
  const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => orch(['build', `m${i}.py`, '--json'], dir)));
  for (const r of runs) {
    assert.is(r.exitCode, 0, r.stderr);
    assert.is(JSON.parse(r.stdout).misses, 1);
  }
});

rel('a build killed with SIGKILL at random points never leaves a loadable half entry', async () => {
  const dir = project(1);
  const delays = [30, 120, 250, 400, 700];
  let killed = 0;
  for (const ms of delays) {
    const child = execa(process.execPath, [orchBin, 'build', 'm0.py'], { cwd: dir, env: { GT_CACHE_ROOT: dir }, reject: false });
    await new Promise((r) => setTimeout(r, ms));
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      killed++;
    }
    await child;
    // whatever state the kill left, a run-mode load either finds a whole entry or refuses
    const load = await orch(['run', 'm0.py:s0', '--mode', 'run', '--shape', '3,3,3', '--scalars', '{"w": 2.0}'], dir);
    assert.ok(load.exitCode === 0 || /E_CACHE_MISS/.test(load.stderr), `run mode after kill: ${load.stderr}`);
    if (existsSync(path.join(dir, '.gt_cache_A'))) {
      // make the next attempt start from scratch again
      (await import('node:fs')).rmSync(path.join(dir, '.gt_cache_A'), { recursive: true, force: true });
    }
  }
  assert.ok(killed >= 2, `at least two builds were killed mid-way (${killed})`);
  // a kill between staging and commit: leave an abandoned staging folder and a dead lock
  const child = execa(process.execPath, [orchBin, 'build', 'm0.py'], { cwd: dir, env: { GT_CACHE_ROOT: dir }, reject: false });
  await new Promise((r) => setTimeout(r, 250));
  child.kill('SIGKILL');
  await child;
  const rebuilt = await orch(['build', 'm0.py', '--json'], dir);
  assert.is(rebuilt.exitCode, 0, rebuilt.stderr);
  const ok = await orch(['run', 'm0.py:s0', '--mode', 'run', '--shape', '3,3,3', '--scalars', '{"w": 2.0}', '--json'], dir);
  assert.is(ok.exitCode, 0, ok.stderr);
  assert.not.ok(entryDirs(dir, 'm0', 's0').some((n) => n.startsWith('.staging') || n === '.lock'));
});

rel('a stale lock from a dead process is broken', async () => {
  const dir = project(1);
  const lockDir = path.join(dir, '.gt_cache_A/m0/s0/.lock');
  mkdirSync(lockDir, { recursive: true });
  writeFileSync(path.join(lockDir, 'owner.json'), JSON.stringify({ pid: 2 ** 22 + 12345, host: os.hostname(), time: Date.now() }));
  const r = await orch(['build', 'm0.py', '--json'], dir);
  assert.is(r.exitCode, 0, r.stderr);
  assert.is(JSON.parse(r.stdout).misses, 1);
});

async function corruptAndCheck(mutate: (entry: string) => void, expect: RegExp) {
  const dir = project(1);
  const first = await orch(['build', 'm0.py', '--json'], dir);
  const key = JSON.parse(first.stdout).entries[0].key as string;
  const entry = path.join(dir, '.gt_cache_A/m0/s0', key);
  mutate(entry);
  const run = await orch(['run', 'm0.py:s0', '--mode', 'run', '--shape', '3,3,3', '--scalars', '{"w": 2.0}'], dir);
  assert.is(run.exitCode, 1, 'run mode refuses a corrupted entry');
  assert.match(run.stderr, 'E_CACHE_MISS');
  assert.match(run.stderr, expect);
  const again = await orch(['build', 'm0.py', '--json'], dir);
  const e = JSON.parse(again.stdout).entries[0];
  assert.is(e.status, 'miss', 'the corrupted entry is rebuilt');
  assert.match(e.reason, expect);
  const ok = await orch(['run', 'm0.py:s0', '--mode', 'run', '--shape', '3,3,3', '--scalars', '{"w": 2.0}'], dir);
  assert.is(ok.exitCode, 0, ok.stderr);
}

rel('a truncated library is detected by its checksum and rebuilt', async () => {
  await corruptAndCheck((entry) => {
    const so = readdirSync(entry).find((n) => n.endsWith('.so'))!;
    truncateSync(path.join(entry, so), 100);
  }, /corrupted \(lib.*\.so does not match its checksum\)/);
});

rel('an edited build-info.json is detected', async () => {
  await corruptAndCheck((entry) => {
    const f = path.join(entry, 'build-info.json');
    writeFileSync(f, readFileSync(f, 'utf8').replace('"created"', '"created_"'));
  }, /build-info.json was modified/);
});

rel('a missing file of an entry is detected', async () => {
  await corruptAndCheck((entry) => unlinkSync(path.join(entry, 'ir.txt')), /lost ir\.txt/);
});

rel('a missing or failing compiler and an unwritable cache are clear errors', async () => {
  const dir = project(1);
  writeFileSync(path.join(dir, 'orch.config.ts'), "export default { compiler: { cxx: 'no-such-gxx-compiler' } };\n");
  const missing = await orch(['build', 'm0.py'], dir);
  assert.is(missing.exitCode, 1);
  assert.match(missing.stderr, 'E_TOOLCHAIN');
  assert.match(missing.stderr, 'no-such-gxx-compiler');
  writeFileSync(path.join(dir, 'orch.config.ts'), "export default { compiler: { extraFlags: ['-fno-such-option-orch'] } };\n");
  const failing = await orch(['build', 'm0.py'], dir);
  assert.is(failing.exitCode, 1);
  assert.match(failing.stderr, 'E_CXX');
  assert.match(failing.stderr, 'fno-such-option-orch');
  unlinkSync(path.join(dir, 'orch.config.ts'));
  const ro = await orch(['build', 'm0.py'], dir, { GT_CACHE_ROOT: '/proc/orch-cache-test' });
  assert.is(ro.exitCode, 1);
  assert.match(ro.stderr, 'E_CACHE_WRITE');
  assert.not.match(ro.stderr, /\n\s+at .*\.js:\d+/);
});

rel('a full disk is reported as a cache write error with a hint', () => {
  const err = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  try {
    cacheWriteError(err, '/cache/x.cpp');
    assert.unreachable();
  } catch (e) {
    assert.instance(e, OrchError);
    const d = (e as OrchError).diagnostic;
    assert.is(d.code, 'E_CACHE_WRITE');
    assert.match(d.hint ?? '', 'full');
  }
});

rel('module and entry names cannot escape the cache root or inject code', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-names-'));
  const odd = path.join(dir, 'we ird";$(touch INJECTED)\\n.py');
  writeFileSync(odd, `${HEADER}\n\ndef s(a: FloatField, b: FloatField, w: Float):\n    with computation(PARALLEL), interval(...):\n        b = a * w\n`);
  const r = await orch(['run', `${odd}:s`, '--mode', 'build-and-run', '--shape', '3,3,3', '--scalars', '{"w": 2.0}', '--json'], dir);
  assert.is(r.exitCode, 0, r.stderr);
  assert.not.ok(existsSync(path.join(dir, 'INJECTED')));
  const cacheTop = readdirSync(path.join(dir, '.gt_cache_A'));
  assert.ok(cacheTop.every((n) => /^[A-Za-z0-9_.-]+$/.test(n)), cacheTop.join());
  const escape = await orch(['run', '../../../etc/passwd.py:x', '--mode', 'build-and-run'], dir);
  assert.is(escape.exitCode, 1);
  const badEntry = await orch(['run', `${odd}:../../x`, '--mode', 'build-and-run'], dir);
  assert.is(badEntry.exitCode, 2, badEntry.stderr);
  assert.match(badEntry.stderr, 'E_USAGE_TARGET');
});

rel.run();
