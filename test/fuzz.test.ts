import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { execa } from 'execa';
import { suite } from 'uvu';
import { CASES_DIR } from './conformanceKit.js';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { validateConfig } from '../core/config/loadConfig.js';
import { resolveConfig } from '../cli/toolset.js';
import type { OrchConfig } from '../core/config/types.js';
import { OrchError, OrchErrors } from '../core/diagnostics.js';
import { parseDefine, parseExternals } from '../core/frontend/externalsJson.js';

/**
 * Hostile input: valid modules mutated at random, random bytes, random config values and
 * CLI strings. Whatever comes in, orch answers with diagnostics, never a crash or a stack
 * trace. The number of cases is bounded so CI stays fast; ORCH_FUZZ_RUNS raises it.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const casesDir = CASES_DIR;
const RUNS = Number(process.env.ORCH_FUZZ_RUNS ?? 300);
const work = mkdtempSync(path.join(os.tmpdir(), 'orch-fuzz-'));
const caseNames = readdirSync(casesDir).sort();
for (const c of caseNames) cpSync(path.join(casesDir, c), path.join(work, c), { recursive: true, filter: (s) => !s.includes(`${path.sep}in`) && !s.includes(`${path.sep}out`) });
const originals = caseNames.map((c) => readFileSync(path.join(casesDir, c, 'module.py'), 'utf8'));
const config = await resolveConfig({ configFile: null, cwd: work });
const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, stopAfter: 'libraryExpansion', print: () => undefined });

const TOKENS = ['[', ']', '(', ')', ':', ',', '.', '=', '==', '+', '-', '*', '**', '/', '//', '%', 'not ', ' and ', ' or ', 'lambda: ', 'if ', 'else', 'while ', 'for ', 'return ', 'with ', 'def ', '\n', '\n    ', '\n        ', '    ', '0', '1', '-1', '1e400', '0x', '"', "'", '#', '\\', '\t', 'q', 'None', 'True', 'interval(', 'computation(', 'region[', 'horizontal(', 'FORWARD', '__INLINED(', 'from __externals__ import X\n', 'import os\n', '@gtscript.function\n', '[0, 0, lev]', '[1, 0, 0]', '𝜋', '\u0000'];

const mutation = fc.record({
  kind: fc.constantFrom('insert', 'delete', 'replace', 'duplicate-line', 'swap-lines', 'truncate'),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  len: fc.integer({ min: 1, max: 40 }),
  token: fc.constantFrom(...TOKENS),
});

function mutate(src: string, muts: { kind: string; at: number; len: number; token: string }[]): string {
  let s = src;
  for (const m of muts) {
    const pos = Math.floor(m.at * s.length);
    const lines = s.split('\n');
    const li = Math.floor(m.at * lines.length);
    switch (m.kind) {
      case 'insert':
        s = s.slice(0, pos) + m.token + s.slice(pos);
        break;
      case 'delete':
        s = s.slice(0, pos) + s.slice(pos + m.len);
        break;
      case 'replace':
        s = s.slice(0, pos) + m.token + s.slice(pos + m.len);
        break;
      case 'duplicate-line':
        lines.splice(li, 0, lines[li] ?? '');
        s = lines.join('\n');
        break;
      case 'swap-lines':
        if (li + 1 < lines.length) [lines[li], lines[li + 1]] = [lines[li + 1], lines[li]];
        s = lines.join('\n');
        break;
      case 'truncate':
        s = s.slice(0, pos);
        break;
    }
  }
  return s;
}

let tried = 0;

/** Builds one module in python mode; anything but success or diagnostics fails the property. */
async function buildSurvives(caseIndex: number, source: string): Promise<boolean> {
  tried++;
  const dir = path.join(work, caseNames[caseIndex]);
  const file = path.join(dir, 'module.py');
  writeFileSync(file, source);
  const spec = JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8'));
  const r = await compiler.build({ modules: [file], externals: parseExternals(JSON.stringify(spec.externals ?? {})), defines: spec.compiletime ?? {}, mode: 'python' });
  for (const d of r.errors) {
    // internal failures inside a stage are wrapped as E_PLUGIN / E_IR_INVALID: those are bugs
    if (d.code === 'E_PLUGIN' || d.code === 'E_IR_INVALID') throw new Error(`${d.code}: ${d.message}\n${d.detail ?? ''}`);
    if (!d.code || !d.message) return false;
    if (d.loc && (d.loc.line < 1 || d.loc.col < 1)) return false;
  }
  return true;
}

const fuzz = suite('fuzz');

fuzz('mutated conformance modules give diagnostics, never crashes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: caseNames.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), async (ci, muts) => buildSurvives(ci, mutate(originals[ci], muts))),
    { numRuns: RUNS, seed: 20261122 },
  );
});

fuzz('random bytes as a module give diagnostics', async () => {
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), async (bytes) => buildSurvives(0, Buffer.from(bytes).toString('latin1'))),
    { numRuns: Math.ceil(RUNS / 3), seed: 7 },
  );
});

function onlyDiagnostics(f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch (e) {
    return e instanceof OrchError || e instanceof OrchErrors;
  }
}

fuzz('random config values, externals and defines are validated, never crash', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.constantFrom('modules', 'preset', 'plugins', 'compiler', 'codegen', 'cacheRoot', 'pythonPath', 'externals', 'defines', 'verifyIR', 'presett', 'x'), fc.anything()), (cfg) =>
      onlyDiagnostics(() => validateConfig(cfg as OrchConfig, 'orch.config.ts')),
    ),
    { numRuns: RUNS, seed: 11 },
  );
  fc.assert(fc.property(fc.string(), (s) => onlyDiagnostics(() => parseExternals(s))), { numRuns: RUNS, seed: 12 });
  fc.assert(fc.property(fc.json(), (s) => onlyDiagnostics(() => parseExternals(s))), { numRuns: RUNS, seed: 13 });
  fc.assert(fc.property(fc.string(), (s) => onlyDiagnostics(() => parseDefine(s))), { numRuns: RUNS, seed: 14 });
});

fuzz('the CLI answers hostile modules with exit code 1 and no stack trace', async () => {
  const orchBin = path.resolve(here, '../bin/orch.js');
  const samples = fc.sample(fc.tuple(fc.integer({ min: 0, max: caseNames.length - 1 }), fc.array(mutation, { minLength: 2, maxLength: 5 })), { numRuns: 6, seed: 99 });
  for (const [ci, muts] of samples) {
    const dir = path.join(work, caseNames[ci]);
    writeFileSync(path.join(dir, 'module.py'), mutate(originals[ci], muts) + '\n[broken');
    const r = await execa(process.execPath, [orchBin, 'build', 'module.py'], { cwd: dir, env: { GT_CACHE_ROOT: work }, reject: false });
    assert.is(r.exitCode, 1, r.stderr);
    assert.match(r.stderr, /error E_[A-Z_]+/);
    assert.not.match(r.stderr, /\n\s+at .*\.js:\d+/);
  }
});

fuzz('fuzz figures', () => {
  assert.ok(tried >= RUNS, `tried ${tried} module builds`);
  process.stdout.write(`  fuzz: ${tried} module builds, all answered with diagnostics or success\n`);
});

fuzz.run();
