import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sha256 } from '../core/cache/hashing.js';

/**
 * A library that does not load never gets into the cache, and one already there (written
 * by an older orch, or broken since) is marked bad and rebuilt with the reason instead of
 * failing every run (issue 12, items 3 and 13).
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const orchBin = path.resolve(here, '../bin/orch.js');
const MOD = 'import orch\nfrom gt4py.cartesian.gtscript import PARALLEL, computation, interval\nfrom ndsl.dsl.typing import FloatField\n\n\n@orch.stencil\ndef st(q: FloatField, out: FloatField):\n    with computation(PARALLEL), interval(...):\n        out = q * 2.0\n';

function project(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-poison-'));
  writeFileSync(path.join(dir, 'mod.py'), MOD);
  return dir;
}

function orch(args: string[], cwd: string) {
  return execa(process.execPath, [orchBin, ...args], { cwd, env: { GT_CACHE_ROOT: cwd }, reject: false });
}

/** A compiler wrapper that answers --version like g++ and otherwise runs `body` (sh). */
function fakeCompiler(dir: string, body: string): string {
  const f = path.join(dir, 'fakecc');
  writeFileSync(f, `#!/bin/sh\nif [ "$1" = "--version" ]; then exec g++ --version; fi\n${body}\n`);
  chmodSync(f, 0o755);
  writeFileSync(path.join(dir, 'orch.config.ts'), `export default { compiler: { cxx: ${JSON.stringify(f)} } };\n`);
  return f;
}

/** Replaces the entry's library with one that does not load, with checksums to match (as an entry an older orch committed). */
function poison(dir: string): void {
  const root = path.join(dir, '.gt_cache_A', 'mod', 'st');
  const key = readdirSync(root).find((n) => /^[0-9a-f]{64}$/.test(n))!;
  const entry = path.join(root, key);
  const infoFile = path.join(entry, 'build-info.json');
  const info = JSON.parse(readFileSync(infoFile, 'utf8'));
  const garbage = 'this is not an ELF file\n';
  writeFileSync(path.join(entry, info.library), garbage);
  info.checksums[info.library] = sha256(garbage);
  const infoText = JSON.stringify(info, null, 1);
  writeFileSync(infoFile, infoText);
  for (const m of [...readdirSync(path.join(root, 'manifests')).map((n) => path.join(root, 'manifests', n)), path.join(root, 'latest.json')]) {
    const manifest = JSON.parse(readFileSync(m, 'utf8'));
    manifest.infoHash = sha256(infoText);
    writeFileSync(m, JSON.stringify(manifest));
  }
}

const p = suite('poisoned cache entries');

p('a compiler that exits 0 but writes a library that does not load gets nothing committed', async () => {
  const dir = project();
  fakeCompiler(dir, 'out=""\nwhile [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then out="$2"; fi; shift; done\necho garbage > "$out"\nexit 0');
  for (let i = 0; i < 2; i++) {
    const r = await orch(['build', 'mod.py', '--json'], dir);
    assert.is(r.exitCode, 1, r.stdout + r.stderr);
    assert.match(r.stderr, 'E_TOOLCHAIN_OUTPUT');
    assert.match(r.stderr, 'exited 0 but the library it wrote does not load');
    assert.is(JSON.parse(r.stdout).hits, 0, 'the bad library was never committed');
  }
});

p('a compiler that exits 0 but writes no library is a toolchain error, not a bug in orch', async () => {
  const dir = project();
  fakeCompiler(dir, 'exit 0');
  const r = await orch(['build', 'mod.py'], dir);
  assert.is(r.exitCode, 1, r.stderr);
  assert.match(r.stderr, 'E_TOOLCHAIN_OUTPUT');
  assert.match(r.stderr, 'exited 0 but wrote no library');
  assert.not.match(r.stderr, 'E_PLUGIN');
});

p('a cached library that fails to load is marked bad: run mode says why, build-and-run rebuilds it (CLI)', async () => {
  const dir = project();
  assert.is((await orch(['build', 'mod.py'], dir)).exitCode, 0);
  poison(dir);
  const run = await orch(['run', 'mod.py:st', '--mode', 'run', '--shape', '2,2,1'], dir);
  assert.is(run.exitCode, 1, run.stderr);
  assert.match(run.stderr, 'does not load; marked bad');
  assert.match(run.stderr, 'E_CACHE_MISS');
  assert.match(run.stderr, /was marked bad \(cannot load program library/);
  const rebuilt = await orch(['run', 'mod.py:st', '--mode', 'build-and-run', '--shape', '2,2,1', '--check', '--json'], dir);
  assert.is(rebuilt.exitCode, 0, rebuilt.stderr);
  const report = JSON.parse(rebuilt.stdout.trim().split('\n').pop()!);
  assert.is(report.cache, 'miss');
  assert.match(report.reason, 'was marked bad');
  const again = await orch(['run', 'mod.py:st', '--mode', 'run', '--shape', '2,2,1', '--check', '--json'], dir);
  assert.is(again.exitCode, 0, again.stderr);
  assert.is(JSON.parse(again.stdout.trim().split('\n').pop()!).cache, 'hit');
});

p('a cached library that fails to load is marked bad and rebuilt (Python package)', async () => {
  const dir = project();
  assert.is((await orch(['build', 'mod.py'], dir)).exitCode, 0);
  poison(dir);
  writeFileSync(path.join(dir, 'main.py'), 'import numpy as np\nimport orch\nimport mod\nq = np.ones((2, 2, 1))\nout = np.zeros((2, 2, 1))\nmod.st(q, out)\nprint(float(out[0, 0, 0]))\n');
  const r = await execa('python3', ['main.py'], { cwd: dir, reject: false, env: { PYTHONPATH: path.join(repo, 'python'), ORCH_MODE: 'build-and-run', GT_CACHE_ROOT: dir } });
  assert.is(r.exitCode, 0, r.stderr);
  assert.is(String(r.stdout).trim(), '2.0');
  const history = readFileSync(path.join(dir, '.gt_cache_A', 'mod', 'st', 'history.jsonl'), 'utf8');
  assert.match(history, 'was marked bad');
});

p.run();
