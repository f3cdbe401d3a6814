import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ModuleEntriesSchema } from '../core/cache/cacheSchemas.js';

/**
 * Every JSON file orch reads back from the cache is validated: a corrupted one is a miss
 * with a reason and is rewritten, never a stack trace, and no key read from the cache
 * reaches outside it (issue 12, items 8, 9 and 12).
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const orchBin = path.resolve(here, '../bin/orch.js');
const MOD = 'from gt4py.cartesian.gtscript import PARALLEL, computation, interval\nfrom ndsl.dsl.typing import FloatField\n\n\ndef smooth(q: FloatField, out: FloatField):\n    with computation(PARALLEL), interval(...):\n        out = q * 2.0\n';
const TRACE = /\n\s+at .*\.js:\d+/;

function orch(args: string[], cwd: string) {
  return execa(process.execPath, [orchBin, ...args], { cwd, env: { GT_CACHE_ROOT: cwd }, reject: false });
}

/**
 * One built project whose cache is reset from a saved copy per case (a build costs a
 * compile; a copy does not). The project stays in place: its absolute path is in the key.
 */
let project: string | undefined;
async function builtProject(): Promise<string> {
  const saved = () => path.join(project!, 'saved-cache');
  if (!project) {
    project = mkdtempSync(path.join(os.tmpdir(), 'orch-corrupt-'));
    writeFileSync(path.join(project, 'mod.py'), MOD);
    const b = await orch(['build', 'mod.py'], project);
    assert.is(b.exitCode, 0, b.stderr);
    await execa('cp', ['-a', path.join(project, '.gt_cache_A'), saved()]);
  }
  rmSync(path.join(project, '.gt_cache_A'), { recursive: true, force: true });
  rmSync(path.join(project, 'outside'), { recursive: true, force: true });
  await execa('cp', ['-a', saved(), path.join(project, '.gt_cache_A')]);
  return project;
}

const entryRoot = (dir: string) => path.join(dir, '.gt_cache_A', 'mod', 'smooth');

const c = suite('cache corruption');

c('a corrupted module-entries memo is rewritten and builds the right entries', async () => {
  const forged = (entries: string[]) => JSON.stringify({ entries, check: '0'.repeat(64) });
  // valid names that are not the module's entries: a memo trusted as is fails every build, or builds nothing
  for (const bad of ['5', 'null', '[{"a":1}]', '"smooth"', '["other"]', '[]', forged(['other']), forged([]), forged(['smooth', 'other'])]) {
    const dir = await builtProject();
    const memoDir = path.join(dir, '.gt_cache_A', '.modules');
    const [memo] = readdirSync(memoDir);
    writeFileSync(path.join(memoDir, memo), bad);
    const r = await orch(['build', 'mod.py', '--json'], dir);
    assert.is(r.exitCode, 0, `${bad}: ${r.stderr}`);
    const report = JSON.parse(r.stdout);
    assert.equal(report.entries.map((e: { entry: string; status: string }) => [e.entry, e.status]), [['smooth', 'hit']], bad);
    assert.ok(ModuleEntriesSchema.safeParse(JSON.parse(readFileSync(path.join(memoDir, memo), 'utf8'))).success, `${bad}: the memo was rewritten`);
  }
});

c('a corrupted manifest or latest.json is a miss with a reason, rewritten by the build; orch info still works', async () => {
  const cases: [string, string, RegExp][] = [
    ['manifest', '{"files": null}', /cache manifest is corrupted: .*malformed/],
    ['manifest', '[]', /cache manifest is corrupted: .*malformed/],
    ['manifest', '{"key": 5}', /cache manifest is corrupted: .*malformed/],
    ['manifest', '{"files"', /cache manifest is corrupted: .*not valid JSON/],
    ['latest', '5', /./],
  ];
  for (const [which, bad, reason] of cases) {
    const dir = await builtProject();
    const root = entryRoot(dir);
    const file = which === 'latest' ? path.join(root, 'latest.json') : path.join(root, 'manifests', readdirSync(path.join(root, 'manifests'))[0]);
    writeFileSync(file, bad);
    const info = await orch(['info'], dir);
    assert.is(info.exitCode, 0, `${which} ${bad}: ${info.stderr}`);
    assert.not.match(info.stderr, TRACE);
    const run = await orch(['run', 'mod.py:smooth', '--mode', 'run', '--shape', '2,2,1', '--check'], dir);
    assert.not.match(run.stderr, TRACE);
    if (which === 'manifest') {
      assert.is(run.exitCode, 1, `${bad}: run mode refuses`);
      assert.match(run.stderr, 'E_CACHE_MISS');
      assert.match(run.stderr, reason);
    } else assert.is(run.exitCode, 0, `latest.json is only read to explain misses: ${run.stderr}`);
    const b = await orch(['build', 'mod.py', '--json'], dir);
    assert.is(b.exitCode, 0, `${which} ${bad}: ${b.stderr}`);
    const again = await orch(['build', 'mod.py', '--json'], dir);
    assert.is(JSON.parse(again.stdout).hits, 1, `${which} ${bad}: rewritten, so the next build hits`);
    JSON.parse(readFileSync(file, 'utf8'));
  }
});

c('a key read from the cache that points outside it is a miss, and nothing outside is loaded', async () => {
  const dir = await builtProject();
  const root = entryRoot(dir);
  const key = readdirSync(root).find((n) => /^[0-9a-f]{64}$/.test(n))!;
  // a complete copy of the entry outside the cache, which the manifest then points at
  const outside = path.join(dir, 'outside');
  mkdirSync(outside);
  await execa('cp', ['-a', `${path.join(root, key)}/.`, outside]);
  const rel = path.relative(root, outside);
  for (const f of [path.join(root, 'latest.json'), ...readdirSync(path.join(root, 'manifests')).map((n) => path.join(root, 'manifests', n))]) {
    const m = JSON.parse(readFileSync(f, 'utf8'));
    m.key = rel; // ../../../outside
    writeFileSync(f, JSON.stringify(m));
  }
  const run = await orch(['run', 'mod.py:smooth', '--mode', 'run', '--shape', '2,2,1', '--json'], dir);
  assert.is(run.exitCode, 1, run.stdout);
  assert.match(run.stderr, 'E_CACHE_MISS');
  assert.match(run.stderr, /key: not a 64-digit hex key/);
  const info = await orch(['info'], dir);
  assert.is(info.exitCode, 0, info.stderr);
  assert.not.match(info.stdout, path.basename(outside));
});

c('a history.jsonl linked out of the cache is replaced, and the file it pointed at is left alone', async () => {
  const dir = await builtProject();
  const history = path.join(entryRoot(dir), 'history.jsonl');
  const target = path.join(dir, 'outside-history.jsonl');
  writeFileSync(target, 'not orch\n');
  rmSync(history);
  symlinkSync(target, history);
  const b = await orch(['build', 'mod.py', '--json'], dir);
  assert.is(b.exitCode, 0, b.stderr);
  assert.is(readFileSync(target, 'utf8'), 'not orch\n', 'nothing was written outside the cache');
  assert.ok(lstatSync(history).isFile(), 'the link was replaced by a file');
  assert.match(readFileSync(history, 'utf8'), '"result":"hit"');
  rmSync(target);
});

c.run();
