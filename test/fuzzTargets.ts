import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { dump } from 'npyjs';
import { Compiler } from '../core/Compiler.js';
import { loadConfigFile, validateConfig } from '../core/config/loadConfig.js';
import type { OrchConfig } from '../core/config/types.js';
import { OrchError, OrchErrors } from '../core/diagnostics.js';
import { parseDefine, parseExternals } from '../core/frontend/externalsJson.js';
import { readNpy } from '../core/runtime/npy.js';
import { resolveConfig } from '../cli/toolset.js';
import { CASES_DIR } from './conformanceKit.js';
import { REPO, TempProject } from './TempProject.js';

/**
 * The fuzz targets, run in a worker thread by fuzz.test.ts, which kills the worker when
 * one input runs longer than the limit (a hang in synchronous code cannot be interrupted
 * from inside). Before each input the worker posts it, so the test can name the input
 * that hung. Each target gets a share of a time budget; fast-check shrinks a failure.
 */

export interface FuzzRequest {
  budgetMs: number;
  seed: number;
}
export type FuzzMessage =
  | { t: 'start'; target: string; input: string }
  | { t: 'end' }
  | { t: 'fail'; target: string; message: string }
  | { t: 'done'; runs: Record<string, number> };

const { budgetMs, seed } = workerData as FuzzRequest;
const post = (m: FuzzMessage) => parentPort!.postMessage(m);
const runs: Record<string, number> = {};

/** A thrown value that is a diagnostic for the user, not a bug. */
function isDiagnostic(e: unknown): boolean {
  if (e instanceof OrchErrors) return e.diagnostics.every((d) => !BUG.test(d.code));
  return e instanceof OrchError && !BUG.test(e.diagnostic.code);
}
const BUG = /^E_(PLUGIN|INTERNAL|IR_INVALID)$/;

/** Runs one input of a target, posting it first for the watchdog. */
async function attempt<T>(target: string, input: string, f: () => T | Promise<T>): Promise<T> {
  runs[target] = (runs[target] ?? 0) + 1;
  post({ t: 'start', target, input: input.slice(0, 4000) });
  try {
    return await f();
  } finally {
    post({ t: 'end' });
  }
}

// ---- the corpus: conformance case modules and every fixture module, in a scratch copy ----

const work = mkdtempSync(path.join(os.tmpdir(), 'orch-fuzz-'));
function pyFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const f = path.join(dir, n);
    return statSync(f).isDirectory() ? pyFiles(f) : n.endsWith('.py') ? [f] : [];
  });
}
cpSync(path.join(REPO, 'fixtures'), path.join(work, 'fixtures'), { recursive: true, filter: (s) => !/\.(npy|so)$/.test(s) });
if (existsSync(CASES_DIR)) cpSync(CASES_DIR, path.join(work, 'cases'), { recursive: true, filter: (s) => !/[\\/](in|out)$/.test(s) });
const corpus = pyFiles(work)
  .sort()
  .map((file) => {
    const caseJson = path.join(path.dirname(file), 'case.json');
    const spec = existsSync(caseJson) ? JSON.parse(readFileSync(caseJson, 'utf8')) : {};
    return { file, source: readFileSync(file, 'utf8'), externals: JSON.stringify(spec.externals ?? {}), defines: spec.compiletime ?? {} };
  });
const config = await resolveConfig({ configFile: null, cwd: work });
const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, stopAfter: 'libraryExpansion', print: () => undefined });

const TOKENS = ['[', ']', '(', ')', ':', ',', '.', '=', '==', '+', '-', '*', '**', '/', '//', '%', 'not ', ' and ', ' or ', 'lambda: ', 'if ', 'else', 'elif ', 'while ', 'for ', 'in ', 'return ', 'with ', 'def ', 'class ', 'self.', '\n', '\n    ', '\n        ', '    ', '0', '1', '-1', '1e400', '2**64', '0x', '"', "'", '"""', '#', '\\', '\t', 'q', 'None', 'True', 'interval(', 'computation(', 'region[', 'horizontal(', 'FORWARD', 'BACKWARD', 'PARALLEL', '__INLINED(', 'from __externals__ import X\n', 'import os\n', 'from . import x\n', '@gtscript.function\n', '@stencil\n', '@program\n', '[0, 0, lev]', '[1, 0, 0]', 'range(', 'temporary(', 'compiletime(', 'origin=(', 'domain=(', '𝜋', '\u0000', '\uFEFF'];

const mutation = fc.record({
  kind: fc.constantFrom('insert', 'delete', 'replace', 'duplicate-line', 'swap-lines', 'truncate', 'splice'),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  len: fc.integer({ min: 1, max: 40 }),
  token: fc.constantFrom(...TOKENS),
  other: fc.nat(),
});
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(src: string, muts: Mutation[]): string {
  let s = src;
  for (const m of muts) {
    const pos = Math.floor(m.at * s.length);
    const lines = s.split('\n');
    const li = Math.floor(m.at * lines.length);
    if (m.kind === 'insert') s = s.slice(0, pos) + m.token + s.slice(pos);
    else if (m.kind === 'delete') s = s.slice(0, pos) + s.slice(pos + m.len);
    else if (m.kind === 'replace') s = s.slice(0, pos) + m.token + s.slice(pos + m.len);
    else if (m.kind === 'truncate') s = s.slice(0, pos);
    else if (m.kind === 'splice') {
      // a line from another module of the corpus: valid code in the wrong place
      const other = corpus[m.other % corpus.length].source.split('\n');
      lines.splice(li, 0, other[m.other % other.length]);
      s = lines.join('\n');
    } else {
      if (m.kind === 'duplicate-line') lines.splice(li, 0, lines[li] ?? '');
      else if (li + 1 < lines.length) [lines[li], lines[li + 1]] = [lines[li + 1], lines[li]];
      s = lines.join('\n');
    }
  }
  return s;
}

/** Builds a module through the frontend and lowering; a non-diagnostic outcome is a failure. */
async function buildSurvives(target: string, ci: number, source: string): Promise<boolean> {
  const c = corpus[ci];
  writeFileSync(c.file, source);
  try {
    return await attempt(target, `${path.relative(work, c.file)}\n${source}`, async () => {
      const r = await compiler.build({ modules: [c.file], externals: parseExternals(c.externals), defines: c.defines, mode: 'python' });
      for (const d of r.errors) {
        if (BUG.test(d.code)) throw new Error(`${d.code}: ${d.message}\n${d.detail ?? ''}`);
        if (!d.code || !d.message) throw new Error(`a diagnostic without a code or message: ${JSON.stringify(d)}`);
        if (d.loc && (d.loc.line < 1 || d.loc.col < 1)) throw new Error(`a diagnostic at line ${d.loc.line} col ${d.loc.col}`);
      }
      // how deep the mutants get: those that still lower to valid IR
      if (!r.errors.length) runs[`${target} lowered`] = (runs[`${target} lowered`] ?? 0) + 1;
      return true;
    });
  } finally {
    // other modules of the corpus import this one
    writeFileSync(c.file, c.source);
  }
}

// ---- .npy: valid files of every dtype, then bytes and header text mutated ----

const npyDir = mkdtempSync(path.join(work, 'npy-'));
const DTYPES = ['float64', 'float32', 'int32', 'int64', 'uint8', 'int16', 'float16'] as const;
const npyValid = fc.record({ dtype: fc.constantFrom(...DTYPES), shape: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 0, maxLength: 4 }) }).map(({ dtype, shape }) => {
  const n = shape.reduce((a, b) => a * b, 1);
  const arr =
    dtype === 'float64' ? new Float64Array(n) : dtype === 'float32' ? new Float32Array(n) : dtype === 'int32' ? new Int32Array(n) : dtype === 'int64' ? new BigInt64Array(n) : dtype === 'int16' ? new Int16Array(n) : dtype === 'float16' ? new Uint16Array(n) : new Uint8Array(n);
  const npyType = { float64: 'f8', float32: 'f4', int32: 'i4', int64: 'i8', uint8: 'u1', int16: 'i2', float16: 'f2' }[dtype];
  return new Uint8Array(dump(arr as never, shape, { dtype: npyType as never }));
});
const HEADER_VALUES = ["'<f8'", "'>f8'", "'|b1'", "'<c16'", "'O'", "'<U3'", 'True', 'False', '()', '(0,)', '(-1, 4)', '(1e9, 1e9, 1e9)', '(9007199254740993,)', '(2**64,)', "{'a': 1}", '[1, 2]', "'", '(', ''];
const npyMutation = fc.oneof(
  fc.record({ kind: fc.constant('byte' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('append' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }) }),
  fc.record({ kind: fc.constant('header' as const), key: fc.constantFrom('descr', 'fortran_order', 'shape'), value: fc.constantFrom(...HEADER_VALUES) }),
);
type NpyMutation = typeof npyMutation extends fc.Arbitrary<infer M> ? M : never;

function mutateNpy(buf: Uint8Array, muts: NpyMutation[]): Uint8Array {
  let b = Buffer.from(buf);
  for (const m of muts) {
    if (m.kind === 'byte' && b.length) b[Math.floor(m.at * b.length) % b.length] = m.value;
    else if (m.kind === 'truncate') b = b.subarray(0, Math.floor(m.at * b.length));
    else if (m.kind === 'append') b = Buffer.concat([b, m.bytes]);
    else if (m.kind === 'header') {
      // rewrite one value of the header dict, keeping the header length field consistent
      const text = b.toString('latin1');
      const re = new RegExp(`'${m.key}': ([^,]*\\)|[^,}]*)`);
      const edited = text.replace(re, `'${m.key}': ${m.value}`);
      b = Buffer.from(edited, 'latin1');
      if (b.length >= 10 && b[6] === 1) {
        const end = b.indexOf(0x0a, 10);
        if (end > 0) b.writeUInt16LE(end + 1 - 10, 8);
      }
    }
  }
  return b;
}

// ---- config: values for every key, and mutated config files through jiti ----

const configProject = new TempProject('fuzz-config');
const CONFIG_TEXT = readFileSync(path.join(REPO, 'docs', 'config.md'), 'utf8')
  .split('<!-- file: orch.config.ts -->\n```ts\n')[1]
  .split('```')[0];
// not process.exit(): a config may end the process it is loaded in, as any module may
const CONFIG_TOKENS = ['{', '}', '[', ']', ',', ':', "'", '"', '`', 'undefined', 'null', '1e309', '-1', 'NaN', 'true', '() => 1', 'new Date()', 'Symbol()', 'throw new Error("x")', '...', 'await ', 'import x from "nope";\n', 'plugins: [{}]', 'plugins: [null]', "preset: 'nope'", 'compiler: { timeoutS: -1 }', "codegen: { loopOrder: 'XYZ' }", 'modules: 5'];
let configN = 0;

async function configSurvives(text: string): Promise<boolean> {
  // a new file name each time: jiti must not serve an earlier one from its cache
  const file = configProject.write(`cfg${configN++}/orch.config.ts`, text);
  return attempt('config file', text, async () => {
    try {
      const { config } = await loadConfigFile(file);
      validateConfig(config, file);
      return true;
    } catch (e) {
      if (isDiagnostic(e)) return true;
      throw e;
    }
  });
}

function onlyDiagnostics(target: string, input: unknown, f: () => unknown): Promise<boolean> {
  let shown: string;
  try {
    shown = JSON.stringify(input) ?? String(input);
  } catch {
    shown = String(input);
  }
  return attempt(target, shown, () => {
    try {
      f();
      return true;
    } catch (e) {
      if (isDiagnostic(e)) return true;
      throw e;
    }
  });
}

// ---- the run: each target a share of the budget ----

const TARGETS: { name: string; share: number; property: () => fc.IAsyncProperty<never> }[] = [
  {
    name: 'mutated corpus modules',
    share: 0.5,
    property: () =>
      fc.asyncProperty(fc.nat({ max: corpus.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 5 }), (ci, muts) => buildSurvives('module', ci, mutate(corpus[ci].source, muts))) as never,
  },
  {
    name: 'random bytes as a module',
    share: 0.05,
    property: () => fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), (bytes) => buildSurvives('module bytes', 0, Buffer.from(bytes).toString('latin1'))) as never,
  },
  {
    name: '.npy files',
    share: 0.15,
    property: () =>
      fc.asyncProperty(npyValid, fc.array(npyMutation, { maxLength: 4 }), (valid, muts) => {
        const bytes = mutateNpy(valid, muts);
        const file = path.join(npyDir, 'a.npy');
        writeFileSync(file, bytes);
        return onlyDiagnostics('npy', Buffer.from(bytes).toString('latin1'), () => readNpy(file));
      }) as never,
  },
  {
    name: 'config values, externals, defines',
    share: 0.1,
    property: () =>
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('modules', 'preset', 'plugins', 'compiler', 'codegen', 'cacheRoot', 'pythonPath', 'externals', 'defines', 'verifyIR', 'files', 'presett', 'x'), fc.anything()),
        fc.string(),
        fc.json(),
        async (cfg, s, json) =>
          (await onlyDiagnostics('config value', cfg, () => validateConfig(cfg as OrchConfig, 'orch.config.ts'))) &&
          (await onlyDiagnostics('externals', s, () => parseExternals(s))) &&
          (await onlyDiagnostics('externals', json, () => parseExternals(json))) &&
          (await onlyDiagnostics('define', s, () => parseDefine(s))),
      ) as never,
  },
  {
    name: 'config files',
    share: 0.2,
    property: () =>
      fc.asyncProperty(fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), del: fc.nat({ max: 12 }), token: fc.constantFrom(...CONFIG_TOKENS) }), { minLength: 1, maxLength: 3 }), (muts) => {
        let text = CONFIG_TEXT;
        for (const m of muts) {
          const pos = Math.floor(m.at * text.length);
          text = text.slice(0, pos) + m.token + text.slice(pos + m.del);
        }
        return configSurvives(text);
      }) as never,
  },
];

for (const [i, t] of TARGETS.entries()) {
  try {
    await fc.assert(t.property(), { numRuns: 1_000_000, seed: seed + i, interruptAfterTimeLimit: Math.max(500, budgetMs * t.share), markInterruptAsFailure: false });
  } catch (e) {
    post({ t: 'fail', target: t.name, message: (e as Error).message.slice(0, 6000) });
  }
}
post({ t: 'done', runs });
