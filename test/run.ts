import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { heaviestFirst, readTestTimes, writeTestTimes, type TestTimes } from './testTimes.js';

/**
 * Runs the compiled test files matching a pattern (default every *.test.js under dist/), each
 * in its own process (test/runFile.ts), several at once, heaviest first. Each file's output is
 * printed as one block when it ends; the last line is the totals, `N passed, M failed`, which
 * CI reads. A file that crashes, exits nonzero or outlives the per-file timeout counts as failed.
 *
 *   node dist/test/run.js ['<regex over paths under dist/>']
 *   ORCH_TEST_JOBS=4        parallel files (default: max(2, cores)); many tests wait on g++,
 *                           python or mpirun, so more jobs than cores can pay off
 *   ORCH_TEST_TIMEOUT_S=900 per-file limit
 *   ORCH_TEST_ROOT=dir      run the *.test.js files under dir instead of dist/ (the runner's
 *                           own test); no timing record is kept then
 * Test files that run work in parallel themselves read ORCH_TEST_JOBS too (test/gpuJobs.ts).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const worker = path.join(root, 'dist', 'test', 'runFile.js');
const dist = process.env.ORCH_TEST_ROOT ? path.resolve(process.env.ORCH_TEST_ROOT) : path.join(root, 'dist');
// kept beside dist/, which every build removes
const timesFile = process.env.ORCH_TEST_ROOT ? undefined : path.join(root, '.test-times.json');

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`${name}=${raw} is not a positive whole number\n`);
    process.exit(2);
  }
  return n;
}

function testFiles(pattern: RegExp): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.git')) continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (pattern.test(path.relative(dist, full).split(path.sep).join('/'))) found.push(path.relative(dist, full).split(path.sep).join('/'));
    }
  };
  walk(dist);
  return found.filter((f) => f.endsWith('.test.js'));
}

interface FileResult {
  name: string;
  seconds: number;
  passed: number;
  failed: number;
  output: string;
  why?: string;
  /** CPU seconds of the file's process and the processes it waited for (Linux only). */
  cpu?: number;
}

const running = new Set<ChildProcess>();

/** The worker and everything it started (it leads its own process group). */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** uvu prints `Total: N` and `Passed: N` last; anything else (a crash, a hang) has no totals. */
function totals(output: string, exitCode: number | null, why: string | undefined): { passed: number; failed: number; why?: string } {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const last = (label: string) => {
    const all = [...plain.matchAll(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'gm'))];
    return all.length ? Number(all[all.length - 1][1]) : NaN;
  };
  const total = last('Total');
  const passed = last('Passed');
  if (Number.isNaN(total) || Number.isNaN(passed)) return { passed: 0, failed: 1, why: why ?? `no uvu totals (exit ${exitCode})` };
  const failed = total - passed;
  if (failed === 0 && (why || exitCode !== 0)) return { passed, failed: 1, why: why ?? `exit ${exitCode} after its tests passed` };
  return { passed, failed, why };
}

function runFile(name: string, timeoutS: number, env: NodeJS.ProcessEnv, cpuOut: string): Promise<FileResult> {
  const start = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [worker, path.join(dist, name)], { cwd: root, env: { ...env, ORCH_TEST_CPU_OUT: cpuOut }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    let why: string | undefined;
    const timer = setTimeout(() => {
      why = `timed out after ${timeoutS} s`;
      killGroup(child);
    }, timeoutS * 1000);
    let settled = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      running.delete(child);
      if (signal && !why) why = `killed by ${signal}`;
      let cpu: number | undefined;
      try {
        cpu = Number(readFileSync(cpuOut, 'utf8'));
      } catch {
        cpu = undefined;
      }
      resolve({ name, seconds: (performance.now() - start) / 1000, output, cpu, ...totals(output, code, why) });
    };
    child.on('error', (e) => {
      output += `could not start ${worker}: ${e.message}\n`;
      finish(null, null);
    });
    child.on('exit', (code, signal) => {
      // a process the test left behind would hold the pipes open: end the group, then
      // wait briefly for the last output
      killGroup(child);
      const grace = setTimeout(() => finish(code, signal), 5000);
      child.on('close', () => {
        clearTimeout(grace);
        finish(code, signal);
      });
    });
  });
}

function block(r: FileResult): string {
  const counts = r.failed ? `${r.passed} passed, ${r.failed} failed` : `${r.passed} passed`;
  const cpu = r.cpu !== undefined && Number.isFinite(r.cpu) ? ` (cpu ${r.cpu.toFixed(1)} s)` : '';
  const head = `${r.failed ? '✘ FAIL ' : '✔ '}${r.name} · ${counts} · ${r.seconds.toFixed(1)} s${cpu}${r.why ? ` · ${r.why}` : ''}`;
  return `\n━━ ${head}\n${r.output.replace(/\s+$/, '')}\n`;
}

async function main(): Promise<number> {
  const pattern = new RegExp(process.argv[2] ?? '\\.test\\.js$', 'i');
  const jobs = positiveInt('ORCH_TEST_JOBS', Math.max(2, os.availableParallelism()));
  const timeoutS = positiveInt('ORCH_TEST_TIMEOUT_S', 900);
  const previous: TestTimes = timesFile ? readTestTimes(timesFile) : {};
  const queue = heaviestFirst(testFiles(pattern), previous);
  if (!queue.length) {
    process.stderr.write(`no test file under ${path.relative(root, dist) || dist} matches /${pattern.source}/i (did \`npm run build\` run?)\n`);
    process.stdout.write('0 passed, 1 failed\n');
    return 2;
  }
  // files of one run share this folder (e.g. one packed and installed orch: test/installedOrch.ts)
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'orch-test-run-'));
  const env = { ...process.env, ORCH_TEST_RUN_DIR: runDir };
  const start = performance.now();
  const results: FileResult[] = [];
  const total = queue.length;
  let started = 0;
  const pool = Array.from({ length: Math.min(jobs, queue.length) }, async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const r = await runFile(name, timeoutS, env, path.join(runDir, `cpu-${started++}`));
      results.push(r);
      process.stdout.write(block(r));
    }
  });
  await Promise.all(pool);
  // files that no longer exist leave the record
  const kept = Object.fromEntries(Object.entries(previous).filter(([name]) => existsSync(path.join(dist, name))));
  if (timesFile) writeTestTimes(timesFile, kept, Object.fromEntries(results.map((r) => [r.name, Math.round(r.seconds * 10) / 10])));
  // the shared install is large: removing it takes a while, so after the totals are out
  const cleanup = () => {
    try {
      rmSync(runDir, { recursive: true, force: true });
    } catch {
      // a file a test left unremovable: the folder stays in the temporary directory
    }
  };

  const passed = results.reduce((s, r) => s + r.passed, 0);
  const failed = results.reduce((s, r) => s + r.failed, 0);
  const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 5);
  const cpu = results.reduce((s, r) => s + (r.cpu !== undefined && Number.isFinite(r.cpu) ? r.cpu : 0), 0);
  process.stdout.write(`\n${total} files, ${jobs} at a time, in ${((performance.now() - start) / 1000).toFixed(1)} s (cpu ${cpu.toFixed(0)} s); slowest: ${slowest.map((r) => `${r.name} ${r.seconds.toFixed(0)} s`).join(', ')}\n`);
  const failedFiles = results.filter((r) => r.failed);
  if (failedFiles.length) process.stdout.write(`failed: ${failedFiles.map((r) => r.name).join(', ')}\n`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  cleanup();
  return failed === 0 ? 0 : 1;
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    for (const c of running) killGroup(c);
    process.exit(130);
  });
}

process.exitCode = await main();
