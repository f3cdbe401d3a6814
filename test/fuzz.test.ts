import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CASES_DIR } from './conformanceKit.js';
import { ORCH_BIN } from './TempProject.js';
import type { FuzzMessage, FuzzRequest } from './fuzzTargets.js';

/**
 * Hostile input for a fixed time budget: the conformance and fixture modules mutated
 * (parser, module loader, lowering to IR), .npy files, config values and config files
 * (fuzzTargets.ts, in a worker). Whatever comes in, orch answers with diagnostics: an
 * uncaught exception, an E_PLUGIN/E_INTERNAL/E_IR_INVALID, or one input running over
 * ORCH_FUZZ_INPUT_S (10 s) fails. ORCH_FUZZ_SECONDS sets the budget (45 s, about a minute
 * with the setup);
 * ORCH_FUZZ_SEED another seed.
 */

const BUDGET_S = Number(process.env.ORCH_FUZZ_SECONDS ?? 45);
const INPUT_LIMIT_MS = Number(process.env.ORCH_FUZZ_INPUT_S ?? 10) * 1000;
const SEED = Number(process.env.ORCH_FUZZ_SEED ?? 20261124);

const fuzz = suite('fuzz');

fuzz(`the frontend, the .npy reader and the config reader answer ${BUDGET_S} s of hostile input with diagnostics only`, async () => {
  const failures: string[] = [];
  let runs: Record<string, number> = {};
  await new Promise<void>((resolve, reject) => {
    const worker = new Worker(new URL('./fuzzTargets.js', import.meta.url), { workerData: { budgetMs: BUDGET_S * 1000, seed: SEED } satisfies FuzzRequest });
    let current: { target: string; input: string; since: number } | undefined;
    let finished = false;
    // a hang in synchronous code can only be stopped from outside
    const watchdog = setInterval(() => {
      if (current && Date.now() - current.since > INPUT_LIMIT_MS) {
        failures.push(`${current.target}: one input ran over ${INPUT_LIMIT_MS / 1000} s:\n${current.input}`);
        finished = true;
        void worker.terminate();
      }
    }, 250);
    worker.on('message', (m: FuzzMessage) => {
      if (m.t === 'start') current = { target: m.target, input: m.input, since: Date.now() };
      else if (m.t === 'end') current = undefined;
      else if (m.t === 'fail') failures.push(`${m.target}: ${m.message}`);
      else {
        runs = m.runs;
        finished = true;
      }
    });
    worker.on('error', (e) => failures.push(`uncaught in the fuzz worker: ${e.stack ?? e}`));
    worker.on('exit', () => {
      clearInterval(watchdog);
      if (!finished) failures.push(`the fuzz worker stopped before the end${current ? `, in ${current.target}:\n${current.input}` : ''}`);
      resolve();
    });
    void reject;
  });
  const total = Object.entries(runs).reduce((a, [k, v]) => a + (k.endsWith('lowered') ? 0 : v), 0);
  process.stdout.write(`  fuzz: ${total} executions in ${BUDGET_S} s (${Object.entries(runs).map(([k, v]) => `${v} ${k}`).join(', ')}), ${failures.length} failures\n`);
  assert.equal(failures, []);
  for (const target of ['module', 'npy', 'config value', 'config file']) assert.ok((runs[target] ?? 0) > 0, `${target}: fuzzed`);
});

fuzz('the CLI answers hostile modules with exit code 1 and no stack trace', async () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'orch-fuzz-cli-'));
  const caseNames = readdirSync(CASES_DIR).sort();
  const TOKENS = ['[', ']', '(', ')', ':', '=', '\n    ', 'q', 'interval(', '1e400', '\u0000'];
  const samples = fc.sample(fc.tuple(fc.nat({ max: caseNames.length - 1 }), fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(...TOKENS)), { minLength: 2, maxLength: 5 })), { numRuns: 6, seed: 99 });
  for (const [ci, muts] of samples) {
    const dir = path.join(work, caseNames[ci]);
    cpSync(path.join(CASES_DIR, caseNames[ci]), dir, { recursive: true, filter: (s) => !/[\\/](in|out)$/.test(s) });
    let src = readFileSync(path.join(dir, 'module.py'), 'utf8');
    for (const [at, token] of muts) src = src.slice(0, Math.floor(at * src.length)) + token + src.slice(Math.floor(at * src.length));
    writeFileSync(path.join(dir, 'module.py'), `${src}\n[broken`);
    const r = await execa(process.execPath, [ORCH_BIN, 'build', 'module.py'], { cwd: dir, env: { GT_CACHE_ROOT: work }, reject: false, timeout: 60_000 });
    assert.is(r.exitCode, 1, r.stderr);
    assert.match(r.stderr, /error E_[A-Z_]+/);
    assert.not.match(r.stderr, /\n\s+at .*\.js:\d+/);
  }
});

fuzz.run();
