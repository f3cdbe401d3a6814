import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

/** `orch build --watch --json` end to end: a real process, real file edits, one JSON line per build. */

const here = path.dirname(fileURLToPath(import.meta.url));
const orchBin = path.resolve(here, '../bin/orch.js');

const HEADER = 'from gt4py.cartesian.gtscript import PARALLEL, computation, interval\nfrom ndsl.dsl.typing import Float, FloatField\n';
const stencil = (name: string, expr: string, imports = '') =>
  `${HEADER}${imports}\n\ndef ${name}(a: FloatField, b: FloatField, w: Float):\n    with computation(PARALLEL), interval(...):\n        b = ${expr}\n`;

interface Line {
  changed: string[];
  rebuilt: string[];
  hits: number;
  misses: number;
  errors: { code: string; file?: string; line?: number }[];
  unchanged: number;
  reloaded: boolean;
  duration_s: number;
}

/** A running `orch build --watch --json`, read one line at a time with bounded waits. */
class WatchProcess {
  private readonly child: ChildProcess;
  private buffer = '';
  private readonly lines: Line[] = [];
  private waiter: (() => void) | undefined;
  stderr = '';

  constructor(dir: string, args: string[]) {
    this.child = spawn(process.execPath, [orchBin, 'build', '--watch', '--json', ...args], { cwd: dir, env: { ...process.env, GT_CACHE_ROOT: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (d: Buffer) => {
      this.buffer += d.toString();
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const text = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (text.trim()) this.lines.push(JSON.parse(text) as Line);
      }
      this.waiter?.();
    });
    this.child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
  }

  async next(timeoutMs = 60_000): Promise<Line> {
    const deadline = Date.now() + timeoutMs;
    while (!this.lines.length) {
      if (this.child.exitCode !== null) throw new Error(`orch exited with ${this.child.exitCode}: ${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no watch line within ${timeoutMs} ms; stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    return this.lines.shift()!;
  }

  /** No further line arrives within `ms` (nothing was rebuilt spuriously). */
  async quiet(ms: number): Promise<boolean> {
    await new Promise((r) => setTimeout(r, ms));
    return this.lines.length === 0;
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }
}

const watch = suite('orch build --watch');

watch('rebuilds only the affected modules, merges bursts, keeps going after errors', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-watch-'));
  const file = (n: string) => path.join(dir, n);
  writeFileSync(file('consts.py'), 'GAIN = 2.0\n');
  writeFileSync(file('a.py'), stencil('sa', 'GAIN * w * a', 'from consts import GAIN\n'));
  writeFileSync(file('b.py'), stencil('sb', 'consts.GAIN + a', 'import consts\n'));
  writeFileSync(file('c.py'), stencil('sc', 'w - a'));
  const p = new WatchProcess(dir, ['a.py', 'b.py', 'c.py']);
  try {
    const first = await p.next();
    assert.equal(first.changed, []);
    assert.equal(first.rebuilt, ['a.py', 'b.py', 'c.py']);
    assert.is(first.misses, 3);
    assert.equal(first.errors, []);

    // a one-line edit to one stencil rebuilds only that module; the others are not even looked up
    writeFileSync(file('c.py'), stencil('sc', 'w + a'));
    const edit = await p.next();
    assert.equal(edit.changed, ['c.py']);
    assert.equal(edit.rebuilt, ['c.py']);
    assert.is(edit.misses, 1);
    assert.is(edit.hits, 0);
    assert.is(edit.unchanged, 2);

    // a save with no change is a cache hit
    writeFileSync(file('a.py'), readFileSync(file('a.py')));
    const save = await p.next();
    assert.equal(save.changed, ['a.py']);
    assert.equal(save.rebuilt, []);
    assert.is(save.hits, 1);
    assert.ok(save.duration_s < 0.5, `no-change save took ${save.duration_s} s`);

    // an imported module reaches exactly its importers
    writeFileSync(file('consts.py'), 'GAIN = 3.0\n');
    const imp = await p.next();
    assert.equal(imp.changed, ['consts.py']);
    assert.equal(imp.rebuilt, ['a.py', 'b.py']);
    assert.is(imp.unchanged, 1);

    // a burst of saves within the debounce is one build
    writeFileSync(file('c.py'), stencil('sc', 'w * a'));
    writeFileSync(file('a.py'), stencil('sa', 'GAIN * w + a', 'from consts import GAIN\n'));
    const burst = await p.next();
    assert.equal(burst.changed, ['a.py', 'c.py']);
    assert.equal(burst.rebuilt, ['a.py', 'c.py']);
    assert.ok(await p.quiet(400), 'one line for the burst');

    // an error is reported with its location, and watching goes on
    writeFileSync(file('consts.py'), 'GAIN = 3.0 +\n');
    const broken = await p.next();
    assert.equal(broken.rebuilt, []);
    // one syntax error, reached through two importers, is one error (it was counted four times)
    assert.is(broken.errors.length, 1, JSON.stringify(broken.errors));
    assert.ok(broken.errors.every((e) => e.code === 'E_SYNTAX' && e.file === file('consts.py') && e.line === 1), JSON.stringify(broken.errors));
    writeFileSync(file('consts.py'), 'GAIN = 5.0\n');
    const fixed = await p.next();
    assert.equal(fixed.errors, []);
    assert.equal(fixed.rebuilt, ['a.py', 'b.py']);
  } finally {
    assert.is(await p.stop(), 0, 'SIGTERM ends the watch cleanly');
  }
});

watch('orch.config.ts edits reload it, a broken config is reported and watched, new modules are built', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-watch-config-'));
  writeFileSync(path.join(dir, 'm.py'), stencil('s', 'w * a'));
  writeFileSync(path.join(dir, 'orch.config.ts'), "export default { modules: ['*.py'] };\n");
  const p = new WatchProcess(dir, []);
  try {
    const first = await p.next();
    assert.equal(first.rebuilt, ['m.py']);
    writeFileSync(path.join(dir, 'orch.config.ts'), "export default { modules: ['*.py'], codegen: { loopOrder: 'KJI' } };\n");
    const reload = await p.next();
    assert.equal(reload.changed, ['orch.config.ts']);
    assert.is(reload.reloaded, true);
    assert.equal(reload.rebuilt, ['m.py'], 'the loop order is part of the key');
    writeFileSync(path.join(dir, 'orch.config.ts'), "export default { modules: ['*.py'], codegen: { loopOrdr: 'KJI' } };\n");
    const bad = await p.next();
    assert.is(bad.errors[0]?.code, 'E_CONFIG_KEY');
    writeFileSync(path.join(dir, 'orch.config.ts'), "export default { modules: ['*.py'], codegen: { loopOrder: 'KJI' } };\n");
    const good = await p.next();
    assert.equal(good.errors, []);
    assert.is(good.hits, 1);
    // a new module matching the config's globs is built; a removed one is dropped
    writeFileSync(path.join(dir, 'n.py'), stencil('sn', 'w - a'));
    const added = await p.next();
    assert.equal(added.changed, ['n.py']);
    assert.equal(added.rebuilt, ['n.py']);
    assert.is(added.unchanged, 1);
    rmSync(path.join(dir, 'n.py'));
    const removed = await p.next();
    assert.equal(removed.changed, ['n.py']);
    assert.equal(removed.rebuilt, []);
    assert.equal(removed.errors, []);
  } finally {
    await p.stop();
  }
});

watch('without --json: one concise status line per build', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-watch-text-'));
  writeFileSync(path.join(dir, 'a.py'), stencil('sa', 'w * a'));
  writeFileSync(path.join(dir, 'b.py'), stencil('sb', 'w * a'));
  const child = spawn(process.execPath, [orchBin, 'build', '--watch', 'a.py', 'b.py'], { cwd: dir, env: { ...process.env, GT_CACHE_ROOT: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const lines = async (n: number) => {
    for (let t = 0; out.split('\n').filter(Boolean).length < n && t < 600; t++) await new Promise((r) => setTimeout(r, 100));
    return out.split('\n').filter(Boolean);
  };
  try {
    const [first] = await lines(1);
    assert.match(first, /^\[watch\] first build: rebuilt a\.py, b\.py; 0 hits, 2 misses, 0 errors; \d+\.\d\d s; watching \d+ files$/);
    writeFileSync(path.join(dir, 'b.py'), stencil('sb', 'w + a'));
    const second = (await lines(2))[1];
    assert.match(second, /^\[watch\] b\.py changed: rebuilt b\.py; 0 hits, 1 miss, 0 errors, 1 unchanged; \d+\.\d\d s; watching \d+ files$/);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
});

watch.run();
