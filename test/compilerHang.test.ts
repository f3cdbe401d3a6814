import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * A hung compiler never blocks orch (or the builds waiting on its entry lock): compiles
 * time out (compiler.timeoutS), and a timeout or a SIGTERM/SIGINT of orch kills the
 * compiler's whole process group (issue 12, item 4).
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const orchBin = path.resolve(here, '../bin/orch.js');
const MOD = 'from gt4py.cartesian.gtscript import PARALLEL, computation, interval\nfrom ndsl.dsl.typing import FloatField\n\n\ndef st(q: FloatField, out: FloatField):\n    with computation(PARALLEL), interval(...):\n        out = q * 2.0\n';

/** A project whose compiler starts a grandchild that sleeps (its pid in child.pid) and waits for it. */
function hangingProject(timeoutS: number): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-hang-'));
  writeFileSync(path.join(dir, 'mod.py'), MOD);
  const cc = path.join(dir, 'hangcc');
  writeFileSync(cc, `#!/bin/sh\nif [ "$1" = "--version" ]; then exec g++ --version; fi\nsleep 300 &\necho $! > ${JSON.stringify(path.join(dir, 'child.pid'))}\nwait\n`);
  chmodSync(cc, 0o755);
  writeFileSync(path.join(dir, 'orch.config.ts'), `export default { compiler: { cxx: ${JSON.stringify(cc)}, timeoutS: ${timeoutS} } };\n`);
  return dir;
}

/** Alive and not a zombie. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  for (let t = 0; t < ms; t += 50) {
    if (cond()) return true;
    await sleep(50);
  }
  return cond();
}

const h = suite('compiler hangs');

h('a compiler that hangs is killed with its children after compiler.timeoutS: E_TOOLCHAIN_TIMEOUT', async () => {
  const dir = hangingProject(2);
  const t0 = Date.now();
  const r = await execa(process.execPath, [orchBin, 'build', 'mod.py'], { cwd: dir, env: { GT_CACHE_ROOT: dir }, reject: false, timeout: 120_000 });
  assert.is(r.exitCode, 1, r.stderr);
  assert.match(r.stderr, 'E_TOOLCHAIN_TIMEOUT');
  assert.match(r.stderr, 'within 2 s');
  assert.ok(Date.now() - t0 < 60_000, 'orch did not wait for the hung compiler');
  const child = Number(readFileSync(path.join(dir, 'child.pid'), 'utf8'));
  assert.ok(await until(() => !alive(child), 5000), `the compiler's child ${child} was killed`);
  assert.not.ok(existsSync(path.join(dir, '.gt_cache_A', 'mod', 'st', '.lock')), 'the entry lock was released');
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  h(`${signal} to orch kills the compiler's process group`, async () => {
    const dir = hangingProject(600);
    const orch = execa(process.execPath, [orchBin, 'build', 'mod.py'], { cwd: dir, env: { GT_CACHE_ROOT: dir }, reject: false });
    const pidFile = path.join(dir, 'child.pid');
    assert.ok(await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 60_000), 'the compiler started');
    const child = Number(readFileSync(pidFile, 'utf8'));
    orch.kill(signal);
    const r = await orch;
    assert.ok(r.signal === signal || r.exitCode !== 0, `orch stopped (${r.signal ?? r.exitCode})`);
    const state = () => (alive(child) ? readFileSync(`/proc/${child}/stat`, 'utf8') : 'gone');
    assert.ok(await until(() => !alive(child), 15_000), `the compiler's child ${child} was killed (orch ended by ${r.signal ?? r.exitCode}; child ${state()}; stderr ${r.stderr})`);
  });
}

h.run();
