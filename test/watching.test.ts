import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { Watching, type WatchRun } from '../core/Watching.js';

const HEADER = 'from gt4py.cartesian.gtscript import PARALLEL, computation, interval\nfrom ndsl.dsl.typing import Float, FloatField\n';
const stencil = (name: string, expr: string) => `${HEADER}\n\ndef ${name}(a: FloatField, b: FloatField, w: Float):\n    with computation(PARALLEL), interval(...):\n        b = ${expr}\n`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const watching = suite('Watching');

watching('changes during a build merge into one rerun; builds never overlap; hooks fire', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-watching-'));
  const files = ['a.py', 'b.py', 'c.py'].map((n) => path.join(dir, n));
  files.forEach((f, n) => writeFileSync(f, stencil(`s${n}`, 'w * a')));
  const config = await resolveConfig({ configFile: null, cwd: dir });
  config.cacheRoot = dir;
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });

  let active = 0;
  let maxActive = 0;
  const watchRuns: string[][] = [];
  const invalid: string[] = [];
  compiler.hooks.watchRun.tap('test', (_c, changed) => void watchRuns.push(changed.map((f) => path.basename(f))));
  compiler.hooks.invalid.tap('test', (file) => void invalid.push(path.basename(file)));
  compiler.hooks.run.tapPromise('test', async () => {
    maxActive = Math.max(maxActive, ++active);
    // while the build after the edit of a.py runs, b.py and c.py change
    if (watchRuns.length === 2) {
      writeFileSync(files[1], stencil('s1', 'w + a'));
      await sleep(120);
      writeFileSync(files[2], stencil('s2', 'w - a'));
      await sleep(120);
    }
  });
  compiler.hooks.done.tap('test', () => void active--);

  const runs: WatchRun[] = [];
  const w = new Watching(
    async () => ({ compiler, request: { modules: files, externals: {}, defines: {}, mode: 'build' } }),
    (error, run) => {
      if (error) throw error;
      runs.push(run!);
    },
    { aggregateTimeout: 30 },
  );
  try {
    const until = async (n: number) => {
      for (let t = 0; runs.length < n && t < 600; t++) await sleep(50);
      assert.ok(runs.length >= n, `${n} builds within 30 s (got ${runs.length})`);
    };
    await until(1);
    assert.is(runs[0].result.entries.filter((e) => e.status === 'built').length, 3);
    writeFileSync(files[0], stencil('s0', 'w / a'));
    await until(3);
    await w.settled();
    await sleep(300);
    assert.is(runs.length, 3, 'b.py and c.py, changed during one build, make one rerun');
    assert.equal(watchRuns, [[], ['a.py'], ['b.py', 'c.py']]);
    assert.equal(runs[2].modules.map((m) => path.basename(m)), ['b.py', 'c.py']);
    assert.is(runs[2].unchanged, 1);
    assert.is(maxActive, 1, 'builds never overlap');
    assert.ok(invalid.includes('a.py') && invalid.includes('b.py') && invalid.includes('c.py'), 'invalid fires per change');
  } finally {
    await w.close();
  }
});

watching.run();
