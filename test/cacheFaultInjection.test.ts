import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compilerCache } from './compilerCache.js';
import { ORCH_BIN, STENCIL_HEADER } from './TempProject.js';

/**
 * Cache fault injection (issue 12): one stencil entry and one @program entry are built
 * into a cache root; then every file under that root, whatever it is, is corrupted in each
 * of a set of ways, one at a time. The next `orch run --mode build-and-run --check` must be
 * a hit that computes the right numbers, or a miss with a reason that rebuilds an entry
 * computing them; never a stack trace, an E_PLUGIN/E_INTERNAL, or an exit code but 0/1.
 * A file beside the entries (module memo, signature memo): the build also finds the same entries. Nothing may be written
 * outside the cache root (a symlink must not be followed). The cases come from listing
 * the cache, so a file orch starts writing is covered unasked.
 *
 * ORCH_FAULT_WORKERS sets how many cases run at once (each in its own cache root);
 * ORCH_FAULT_ONLY, a regular expression over `<file> (<corruption>)`, runs some of them;
 * ORCH_FAULT_RUN_MODE=1 first checks that `orch run --mode run` refuses cleanly or runs right.
 *
 * Every repair rebuilds one of the same three sources: the project builds through ccache
 * (test/compilerCache.ts), so g++ answers from its cache while orch still generates, links,
 * stores and loads each rebuilt library, whose numbers are checked.
 */

const STENCIL = `${STENCIL_HEADER}\n\ndef smooth(q: FloatField, out: FloatField):\n    with computation(PARALLEL), interval(...):\n        out = q * 2.0 + q[0, 0, 0]\n`;
const PROGRAM = `${STENCIL_HEADER}from orch import program, stencil\n\n\n@stencil\ndef scale(q: FloatField, w: Float):\n    with computation(PARALLEL), interval(...):\n        q = w * q + 1.0\n\n\n@program\ndef twice(q: FloatField, w: Float):\n    scale(q, w)\n    scale(q, w)\n`;

/** The modules built, and the run that checks each against the interpreter. */
const TARGETS = [
  { module: 'st.py', entry: 'smooth', folder: path.join('st', 'smooth'), args: [] as string[] },
  { module: 'prog.py', entry: 'twice', folder: path.join('prog', 'twice'), args: ['--scalars', '{"w": 2.0}'] },
];
type Target = (typeof TARGETS)[number];

const TRACE = /\n\s+at .*\.js:\d+/;
const BUG_CODES = /error (E_PLUGIN|E_INTERNAL|E_IR_INVALID)\b/;
const MAX_CACHE_JSON = 64 * 1024 * 1024;

const work = mkdtempSync(path.join(os.tmpdir(), 'orch-fault-'));
const project = path.join(work, 'project');
const saved = path.join(work, 'saved');
/** Outside every cache root, one per worker: copies that symlinks and escaping paths point at. */
const outsideOf = (root: string) => `${root}-outside`;

const ccache = compilerCache(work);

function orch(args: string[], root: string) {
  return execa(process.execPath, [ORCH_BIN, ...args], { cwd: project, env: { ...ccache.env, GT_CACHE_ROOT: root }, reject: false, timeout: 150_000 });
}

/** Every regular file under a folder, relative to it (the lock folder is transient). */
function listFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const n of readdirSync(path.join(dir, rel)).sort()) {
    const r = path.join(rel, n);
    const st = lstatSync(path.join(dir, r));
    if (st.isDirectory() && n !== '.lock') out.push(...listFiles(dir, r));
    else if (st.isFile()) out.push(r);
  }
  return out;
}

function digestTree(dir: string): string {
  const h = createHash('sha256');
  for (const f of listFiles(dir)) h.update(f).update('\0').update(readFileSync(path.join(dir, f))).update('\0');
  return h.digest('hex');
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Every string leaf and key through f, every number through g. */
function mapLeaves(v: unknown, f: (s: string) => string, g: (n: number) => number): unknown {
  if (typeof v === 'string') return f(v);
  if (typeof v === 'number') return g(v);
  if (Array.isArray(v)) return v.map((x) => mapLeaves(x, f, g));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [f(k), mapLeaves(x, f, g)]));
  return v;
}

/** JSON or JSON lines: each value rewritten by `t`; undefined for other files. */
function rewriteJson(text: string, t: (v: unknown) => unknown): string | undefined {
  const whole = parseJson(text);
  if (whole.ok) return JSON.stringify(t(whole.value));
  const lines = text.split('\n').filter(Boolean);
  if (lines.length && lines.every((l) => parseJson(l).ok)) return lines.map((l) => JSON.stringify(t(JSON.parse(l)))).join('\n') + '\n';
  return undefined;
}

interface Corruption {
  name: string;
  apply(file: string, rel: string, seed: number, outside: string): void;
}

const CORRUPTIONS: Corruption[] = [
  { name: 'empty', apply: (f) => writeFileSync(f, '') },
  { name: 'truncated', apply: (f) => truncateSync(f, Math.floor(lstatSync(f).size / 2)) },
  {
    name: 'wrong JSON type',
    apply: (f) => {
      const text = readFileSync(f, 'utf8');
      const wrong = (v: unknown) => (Array.isArray(v) ? { a: 1 } : v && typeof v === 'object' ? [{ a: 1 }] : typeof v === 'string' ? 5 : 'smooth');
      writeFileSync(f, rewriteJson(text, wrong) ?? '[{"a": 1}]');
    },
  },
  {
    name: 'huge value',
    apply: (f) => {
      const json = rewriteJson(readFileSync(f, 'utf8'), (v) => mapLeaves(v, (s) => s + 'x'.repeat(100_000), () => 1e308));
      if (json !== undefined) writeFileSync(f, json);
      // a sparse file past the size orch reads cache JSON up to
      else truncateSync(f, MAX_CACHE_JSON + 1);
    },
  },
  {
    name: 'path escaping the root',
    apply: (f, rel, _seed, outside) => {
      const escape = path.relative(path.dirname(f), path.join(outside, rel));
      const json = rewriteJson(readFileSync(f, 'utf8'), (v) => mapLeaves(v, () => escape, (n) => n));
      writeFileSync(f, json ?? escape);
    },
  },
  {
    name: 'symlink out of the root',
    apply: (f, rel, _seed, outside) => {
      // the same content outside: only the link itself is wrong
      rmSync(f);
      symlinkSync(path.join(outside, rel), f);
    },
  },
  {
    name: 'random bytes',
    apply: (f, _rel, seed) => {
      const [bytes] = fc.sample(fc.uint8Array({ minLength: 1, maxLength: Math.max(16, lstatSync(f).size) }), { numRuns: 1, seed });
      writeFileSync(f, bytes);
    },
  },
];

interface Case {
  file: string;
  corruption: Corruption;
  target: Target | undefined;
}

/** A refusal must be a coded user-facing error; anything else is a bug found. */
function assertClean(r: { exitCode?: number; stderr: string; stdout: string }, what: string) {
  assert.ok(r.exitCode === 0 || r.exitCode === 1, `${what}: exit ${r.exitCode}\n${r.stderr}`);
  assert.not.match(r.stderr, TRACE, `${what}: a stack trace\n${r.stderr}`);
  assert.not.match(r.stderr, BUG_CODES, `${what}: reported as a bug in orch\n${r.stderr}`);
  if (r.exitCode === 1) assert.match(r.stderr, /error E_[A-Z_]+/, `${what}: a refusal without a code\n${r.stderr}`);
}

function runArgs(t: Target): string[] {
  return ['run', `${t.module}:${t.entry}`, '--shape', '3,3,2', ...t.args, '--check', '--json'];
}

/** The run report; a mismatch is a wrong number, the worst outcome. */
function runReport(r: { exitCode?: number; stdout: string; stderr: string }, what: string): { cache: string; reason?: string } {
  const report = JSON.parse(r.stdout.trim().split('\n').pop()!);
  assert.ok(report.check?.passed, `${what}: WRONG NUMBERS ${JSON.stringify(report.check)}`);
  return report;
}

/** Also probe run mode before each repair (doubles the cost; run mode shares the lookup). */
const RUN_MODE_FIRST = process.env.ORCH_FAULT_RUN_MODE === '1';
let tried = 0;
const failures: string[] = [];
let refused = 0;
let rebuilt = 0;

async function runCase(root: string, c: Case): Promise<void> {
  rmSync(root, { recursive: true, force: true });
  cpSync(saved, root, { recursive: true, verbatimSymlinks: true });
  const file = path.join(root, c.file);
  const outside = outsideOf(root);
  c.corruption.apply(file, c.file, ++tried, outside);
  const what = `${c.file} (${c.corruption.name})`;
  const before = digestTree(outside);
  if (!c.target) {
    // a file beside the entries (module memo, signature memo): the build finds the same entries
    const build = await orch(['build', ...TARGETS.map((t) => t.module), '--json'], root);
    assertClean(build, `${what}: orch build`);
    assert.is(build.exitCode, 0, `${what}: the build repairs the cache\n${build.stderr}`);
    const entries = JSON.parse(build.stdout).entries as { entry: string; status: string; reason?: string }[];
    assert.equal(entries.map((e) => e.entry).sort(), TARGETS.map((t) => t.entry).sort(), `${what}: every entry of the modules, and only those`);
    for (const e of entries) if (e.status === 'miss') assert.ok(e.reason && e.reason.length > 3, `${what}: a miss says why`);
  }
  for (const t of c.target ? [c.target] : TARGETS) {
    let refusedInRunMode = false;
    if (RUN_MODE_FIRST) {
      const run = await orch([...runArgs(t), '--mode', 'run'], root);
      assertClean(run, `${what}: orch run --mode run`);
      if (run.exitCode === 0) runReport(run, `${what}: orch run --mode run`);
      else refused++;
      refusedInRunMode = run.exitCode !== 0;
    }
    // a hit runs the right numbers; a miss says why, rebuilds, and the rebuilt library runs them
    const again = await orch([...runArgs(t), '--mode', 'build-and-run'], root);
    assertClean(again, `${what}: orch run --mode build-and-run`);
    assert.is(again.exitCode, 0, `${what}: the build repairs the cache\n${again.stderr}`);
    const report = runReport(again, `${what}: orch run --mode build-and-run`);
    if (refusedInRunMode) assert.is(report.cache, 'miss', `${what}: run mode refused, so the next build must rebuild`);
    if (report.cache === 'miss') {
      rebuilt++;
      assert.ok(report.reason && report.reason.length > 3, `${what}: a miss says why`);
    }
  }
  assert.is(digestTree(outside), before, `${what}: orch wrote outside the cache root`);
}

const fi = suite('cache fault injection');

fi('every file of a stencil and a program entry, corrupted every way: a clean refusal or a miss that rebuilds right numbers', async () => {
  mkdirSync(project);
  writeFileSync(path.join(project, 'st.py'), STENCIL);
  writeFileSync(path.join(project, 'prog.py'), PROGRAM);
  ccache.configure(project);
  await ccache.start();
  const b = await orch(['build', 'st.py', 'prog.py', '--json'], saved);
  assert.is(b.exitCode, 0, b.stderr);
  const files = listFiles(saved);
  assert.ok(files.some((f) => f.includes('.modules')), 'the module memo is listed');
  for (const t of TARGETS) assert.ok(files.some((f) => f.includes(path.join(t.folder, 'manifests'))), `${t.folder}: its manifest is listed`);
  const only = new RegExp(process.env.ORCH_FAULT_ONLY ?? '');
  const cases: Case[] = files
    .flatMap((file) => CORRUPTIONS.map((corruption) => ({ file, corruption, target: TARGETS.find((t) => file.includes(`${t.folder}${path.sep}`)) })))
    .filter((c) => only.test(`${c.file} (${c.corruption.name})`));
  const workers = Math.max(1, Number(process.env.ORCH_FAULT_WORKERS ?? Math.min(4, os.availableParallelism())));
  let next = 0;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      const root = path.join(work, `root-${w}`);
      cpSync(saved, outsideOf(root), { recursive: true });
      while (next < cases.length) {
        const c = cases[next++];
        try {
          await runCase(root, c);
        } catch (e) {
          // every case runs: the report lists each defect, shortened
          failures.push(String((e as Error).message).replace(/x{200,}/g, 'x…').slice(0, 1500));
        }
      }
    }),
  );
  assert.equal(failures, [], `${failures.length} of ${cases.length} corruptions mishandled`);
  const ccacheUse = await ccache.hitRate();
  rmSync(work, { recursive: true, force: true });
  assert.is(tried, process.env.ORCH_FAULT_ONLY ? cases.length : files.length * CORRUPTIONS.length);
  process.stdout.write(
    `  fault injection: ${tried} corruptions (${files.length} cache files x ${CORRUPTIONS.length} ways), ${rebuilt} misses with a reason rebuilt${RUN_MODE_FIRST ? `, ${refused} clean refusals in run mode` : ''}, 0 wrong results, ${((Date.now() - t0) / 1000).toFixed(0)} s; ${ccacheUse}\n`,
  );
});

fi.run();
