import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Watch-mode benchmark (issue 7): a 20-module project under `orch build --watch --json`.
 *   1. a one-line edit to one stencil: what rebuilds, and how long until its line arrives;
 *   2. a save with no change: how long until its line arrives (target < 0.5 s).
 * Run: npx tsc -p tsconfig.json && node dist/bench/watch.js [--modules N] [--repeat R]
 */

const orchBin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/orch.js');
const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const MODULES = arg('modules', 20);
const REPEAT = arg('repeat', 5);

const HEADER = 'from gt4py.cartesian.gtscript import PARALLEL, computation, interval\nfrom ndsl.dsl.typing import Float, FloatField\n';
const stencil = (n: number, expr: string) =>
  `${HEADER}\n\ndef s${n}(q: FloatField, out: FloatField, w: Float):\n    with computation(PARALLEL), interval(...):\n        out = ${expr}\n`;

interface Line {
  changed: string[];
  rebuilt: string[];
  hits: number;
  misses: number;
  errors: unknown[];
  unchanged: number;
  duration_s: number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-bench-watch-'));
  const files = Array.from({ length: MODULES }, (_, n) => path.join(dir, `m${String(n).padStart(2, '0')}.py`));
  files.forEach((f, n) => writeFileSync(f, stencil(n, `q + w * (q[1, 0, 0] + q[-1, 0, 0] - 2.0 * q) + ${n}.0`)));
  writeFileSync(path.join(dir, 'orch.config.ts'), "export default { modules: ['*.py'] };\n");

  const child = spawn(process.execPath, [orchBin, 'build', '--watch', '--json'], { cwd: dir, env: { ...process.env, GT_CACHE_ROOT: dir }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: { line: Line; at: number }[] = [];
  let buffer = '';
  let wake: (() => void) | undefined;
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      lines.push({ line: JSON.parse(buffer.slice(0, nl)) as Line, at: performance.now() });
      buffer = buffer.slice(nl + 1);
    }
    wake?.();
  });
  const next = async (timeoutMs = 300_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!lines.length) {
      if (Date.now() > deadline) throw new Error('no watch line in time');
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 100);
      });
    }
    return lines.shift()!;
  };

  try {
    const t0 = performance.now();
    const first = await next();
    console.log(`first build: ${first.line.misses} modules built in ${first.line.duration_s.toFixed(2)} s (wall ${((first.at - t0) / 1000).toFixed(2)} s)`);

    const edits: { wall: number; build: number; rebuilt: string[]; unchanged: number }[] = [];
    const saves: { wall: number; build: number; hits: number }[] = [];
    for (let r = 0; r < REPEAT; r++) {
      const target = files[(r * 7) % files.length];
      const n = Number(path.basename(target).slice(1, 3));
      // 1. a one-line edit: change the constant in the stencil's only statement
      const edited = stencil(n, `q + w * (q[1, 0, 0] + q[-1, 0, 0] - 2.0 * q) + ${n}.${r + 1}`);
      let t = performance.now();
      writeFileSync(target, edited);
      const e = await next();
      edits.push({ wall: (e.at - t) / 1000, build: e.line.duration_s, rebuilt: e.line.rebuilt, unchanged: e.line.unchanged });
      // 2. save the same file again with no change
      t = performance.now();
      writeFileSync(target, readFileSync(target));
      const s = await next();
      saves.push({ wall: (s.at - t) / 1000, build: s.line.duration_s, hits: s.line.hits });
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const onlyOne = edits.every((e) => e.rebuilt.length === 1 && e.unchanged === MODULES - 1);
    const saveWall = median(saves.map((s) => s.wall));
    console.log(`\nwatch, ${MODULES}-module project, ${REPEAT} runs each (median):`);
    console.log(`  one-line edit to one stencil: rebuilt ${edits.map((e) => e.rebuilt.length).join('/')} module(s), ${MODULES - 1} untouched; ` + `edit -> status line ${median(edits.map((e) => e.wall)).toFixed(3)} s (build ${median(edits.map((e) => e.build)).toFixed(3)} s)  [${onlyOne ? 'PASS' : 'FAIL'}: only that module]`);
    console.log(`  save with no change:          ${saves.every((s) => s.hits === 1) ? 'cache hit' : 'NOT a hit'}; save -> status line ${saveWall.toFixed(3)} s (build ${median(saves.map((s) => s.build)).toFixed(4)} s)  [${saveWall < 0.5 ? 'PASS' : 'FAIL'}: < 0.5 s]`);
    process.exitCode = onlyOne && saveWall < 0.5 ? 0 : 1;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
