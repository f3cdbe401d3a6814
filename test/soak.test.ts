import { lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ORCH_BIN, STENCIL_HEADER } from './TempProject.js';

/**
 * The soak test (issue 12): many processes at once build, run with --check, clean and
 * corrupt entries in one shared GT_CACHE_ROOT, across three projects whose modules have
 * the same relative paths but compute different numbers. Every --check must match, every
 * command must end (each is bounded) with exit 0, or 1 and a coded error that is not a
 * bug in orch. Bounded in time and in operations; the issue's full size is
 * ORCH_SOAK_PROCS=16 ORCH_SOAK_SECONDS=120.
 */

const PROCS = Number(process.env.ORCH_SOAK_PROCS ?? 16);
const SECONDS = Number(process.env.ORCH_SOAK_SECONDS ?? 75);
const MAX_OPS = Number(process.env.ORCH_SOAK_OPS ?? 600);
/** Far above what one command takes even with 16 others on two cores: a hang, not a slow run. */
const OP_TIMEOUT_MS = Number(process.env.ORCH_SOAK_OP_TIMEOUT_S ?? 150) * 1000;

const TRACE = /\n\s+at .*\.js:\d+/;
const BUG_CODES = /error (E_PLUGIN|E_INTERNAL|E_IR_INVALID)\b/;

/** Same paths, different numbers: a library handed to the wrong project is a wrong result. */
function writeProject(dir: string, factor: number): void {
  mkdirSync(path.join(dir, 'sub'), { recursive: true });
  writeFileSync(path.join(dir, 'mod.py'), `${STENCIL_HEADER}\n\ndef smooth(q: FloatField, out: FloatField):\n    with computation(PARALLEL), interval(...):\n        out = q * ${factor.toFixed(1)}\n`);
  writeFileSync(
    path.join(dir, 'sub', 'prog.py'),
    `${STENCIL_HEADER}from orch import program, stencil\n\n\n@stencil\ndef scale(q: FloatField, w: Float):\n    with computation(PARALLEL), interval(...):\n        q = w * q + ${factor.toFixed(1)}\n\n\n@program\ndef twice(q: FloatField, w: Float):\n    scale(q, w)\n    scale(q, w)\n`,
  );
}

const TARGETS = [
  { module: 'mod.py', run: ['mod.py:smooth'] },
  { module: 'sub/prog.py', run: ['sub/prog.py:twice', '--scalars', '{"w": 1.5}'] },
];

type Op = 'build' | 'build-and-run' | 'run' | 'clean' | 'corrupt';
/** Clean and corrupt are rarer: each undoes the work of many builds. */
const OPS: Op[] = ['build', 'build', 'build-and-run', 'build-and-run', 'build-and-run', 'run', 'run', 'clean', 'corrupt', 'corrupt'];

function cacheFiles(dir: string): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const f = path.join(dir, n);
    try {
      const st = lstatSync(f);
      if (st.isDirectory()) out.push(...cacheFiles(f));
      else if (st.isFile()) out.push(f);
    } catch {
      // removed meanwhile by a clean
    }
  }
  return out;
}

const s = suite('soak');

s('processes building, running, cleaning and corrupting one shared cache root never get a wrong number or hang', async () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'orch-soak-'));
  const root = path.join(work, 'cache');
  mkdirSync(root);
  const projects = [2, 3, 5].map((factor, i) => {
    const dir = path.join(work, `p${i}`);
    writeProject(dir, factor);
    return dir;
  });
  const counts: Record<string, number> = {};
  const problems: string[] = [];
  let ops = 0;
  let checks = 0;
  let wrong = 0;
  const deadline = Date.now() + SECONDS * 1000;
  const rng = fc.sample(fc.infiniteStream(fc.nat()), { numRuns: 1, seed: 2026 })[0][Symbol.iterator]();
  const pick = <T>(xs: T[]): T => xs[rng.next().value % xs.length];

  const corrupt = () => {
    const files = cacheFiles(root).filter((f) => !f.includes(`${path.sep}.lock`) && !path.basename(f).includes('.staging'));
    if (!files.length) return;
    const f = pick(files);
    const how = pick(['bytes', 'empty', 'json']);
    // written beside and renamed over: a process that has the library mapped keeps its copy,
    // as it would if the disk went bad under a file already loaded
    const tmp = `${f}.soak-${rng.next().value}`;
    const bytes = how === 'empty' ? '' : how === 'json' ? '{"key": "../../../../outside", "files": null}' : Buffer.from(fc.sample(fc.uint8Array({ minLength: 1, maxLength: 256 }), { numRuns: 1, seed: rng.next().value })[0]);
    try {
      writeFileSync(tmp, bytes);
      renameSync(tmp, f);
    } catch {
      // its folder was cleaned meanwhile
    }
  };

  const one = async (op: Op, project: string, target: (typeof TARGETS)[number]) => {
    if (op === 'corrupt') return corrupt();
    const args =
      op === 'build' ? ['build', target.module] : op === 'clean' ? ['clean'] : ['run', ...target.run, '--mode', op, '--shape', '4,3,2', '--check', '--json'];
    const r = await execa(process.execPath, [ORCH_BIN, ...args], { cwd: project, env: { GT_CACHE_ROOT: root }, reject: false, timeout: OP_TIMEOUT_MS });
    const what = `${path.basename(project)}: orch ${args.join(' ')}`;
    if (r.timedOut) return void problems.push(`${what}: did not end in ${OP_TIMEOUT_MS / 1000} s`);
    if (r.exitCode !== 0 && r.exitCode !== 1) problems.push(`${what}: exit ${r.exitCode} ${r.signal ?? ''}\n${r.stderr.slice(0, 1500)}`);
    if (TRACE.test(r.stderr)) problems.push(`${what}: a stack trace\n${r.stderr.slice(0, 1500)}`);
    if (BUG_CODES.test(r.stderr)) problems.push(`${what}: reported as a bug in orch\n${r.stderr.slice(0, 1500)}`);
    if (r.exitCode === 1 && !/error E_[A-Z_]+/.test(r.stderr)) problems.push(`${what}: a failure without a code\n${r.stderr.slice(0, 1500)}`);
    if (op === 'build-and-run' || op === 'run') {
      const line = r.stdout.trim().split('\n').pop();
      if (!line) return;
      const report = JSON.parse(line) as { check?: { passed: boolean } };
      checks++;
      if (!report.check?.passed) {
        wrong++;
        problems.push(`${what}: WRONG NUMBERS ${line}`);
      }
    }
  };

  await Promise.all(
    Array.from({ length: PROCS }, async () => {
      while (Date.now() < deadline && ops < MAX_OPS) {
        ops++;
        const op = pick(OPS);
        counts[op] = (counts[op] ?? 0) + 1;
        await one(op, pick(projects), pick(TARGETS));
      }
    }),
  );
  process.stdout.write(
    `  soak: ${PROCS} processes, ${ops} operations (${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ')}), ${checks} checks, ${wrong} wrong results, ${problems.length} problems\n`,
  );
  assert.equal(problems, []);
  rmSync(work, { recursive: true, force: true });
  assert.is(wrong, 0);
  assert.ok(checks > 0, 'some runs were checked');
});

s.run();
