import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fail, OrchError } from '../diagnostics.js';
import { emptyIntervalRequirement, intervalsOutOfOrder } from './stencilErrors.js';
import { compilerSaid } from './toolchainErrors.js';
import { argumentDevice, argumentDtype, argumentRank, argumentShape, badExternal, CODES, codeTableMarkdown, isCode, missingArgument, nameNotDefined, noSuchParameter, notEvaluated, notSupported, notIntegers, tooManyArguments } from './codes.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The TypeScript sources orch ships (tests excluded: they may name codes that must not exist). */
function sources(dir: string): string[] {
  return readdirSync(path.join(REPO, dir), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .map((f) => path.join(REPO, dir, f));
}

test('docs/troubleshooting.md lists every code as codes.ts declares it', () => {
  const doc = readFileSync(path.join(REPO, 'docs/troubleshooting.md'), 'utf8');
  assert.ok(doc.includes(codeTableMarkdown()), `docs/troubleshooting.md must contain:\n${codeTableMarkdown()}`);
});

test('every code the sources name is declared, and every declared code is used', () => {
  const used = new Set<string>();
  for (const file of ['core', 'plugins', 'cli', 'bin'].flatMap(sources)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/['`]([EW]_[A-Z0-9_]*[A-Z0-9])['`]/g)) used.add(m[1]);
    // a code built from pieces at run time cannot be looked up in the table
    assert.not.match(text, /['`][EW]_[A-Z_]*_['`]\s*\+/, `${path.relative(REPO, file)} builds a code at run time`);
  }
  const undeclared = [...used].filter((c) => !isCode(c));
  assert.equal(undeclared, [], 'codes used but not in codes.ts');
  const unused = Object.keys(CODES).filter((c) => !used.has(c));
  assert.equal(unused, [], 'codes in codes.ts that nothing raises');
});

test('errors are made only by the factories of core/diagnostics: no other file passes a code as a string to fail(), OrchError or diagnostic(), or writes a diagnostic out', () => {
  const literalCode = [
    /\b(?:fail|usageError|diagnostic)\(\s*['"`][EW]_/, // fail('E_X', message) and its like
    /\bcode:[^,\n]*['"`][EW]_[A-Z0-9_]+['"`]/, // a diagnostic written out: { code: 'E_X', ... }
  ];
  const offenders: string[] = [];
  for (const file of ['core', 'plugins', 'cli', 'bin'].flatMap(sources)) {
    const rel = path.relative(REPO, file);
    if (rel.startsWith(`core${path.sep}diagnostics${path.sep}`)) continue;
    const text = readFileSync(file, 'utf8');
    for (const re of literalCode) {
      const m = re.exec(text);
      if (m) offenders.push(`${rel}:${text.slice(0, m.index).split('\n').length}: ${m[0].replace(/\s+/g, ' ')}`);
    }
  }
  assert.equal(offenders, [], 'add a factory for the error in core/diagnostics/ and call it instead');
});

test('a factory is data: its code, message, hint and location; fail() throws what a factory made', () => {
  const loc = { file: 'm.py', line: 7, col: 9 };
  const e = intervalsOutOfOrder('interval(0, 2)', 'interval(2, None)', 'BACKWARD', true, loc);
  const { frame: _frame, ...made } = e.diagnostic; // the frame is the source under loc, added by OrchError
  assert.equal(made, {
    code: 'E_INTERVAL_ORDER',
    severity: 'error',
    message: 'Intervals must be specified in order of execution: interval(0, 2) comes after interval(2, None) but runs before it in a BACKWARD computation',
    loc,
    length: 'interval'.length,
    hint: 'write the intervals in the order they run (top level first), as GT4Py requires',
  });
  assert.throws(() => fail(e), (err: unknown) => err === e);
  // a string choice moved into the factory: the plural of a requirement checked at run time
  assert.is(emptyIntervalRequirement('interval(0, 1)', 's', 1).message, "interval(0, 1) of stencil 's' needs at least 1 K level, but this call's domain has {0}");
  assert.is(emptyIntervalRequirement('interval(0, 2)', 's', 2).message, "interval(0, 2) of stencil 's' needs at least 2 K levels, but this call's domain has {0}");
  // a compiler's warning stays a warning, and a line without a location carries none
  assert.equal(compilerSaid(false, 'nvlink: w'), { code: 'W_CXX', severity: 'warning', message: 'nvlink: w' });
  assert.ok(new OrchError(compilerSaid(true, 'x')).diagnostic.code === 'E_CXX');
});

test('a list option that is not integers is a usage error of its own code', () => {
  assert.is(notIntegers('shape', '1,x').diagnostic.code, 'E_USAGE_SHAPE');
  assert.is(notIntegers('domain', '1,,2').diagnostic.message, "--domain expects integers separated by commas, got '1,,2'");
  assert.is(notIntegers('origin', 'a').diagnostic.hint, 'write --origin 1,2,3');
});

test('the call and argument factories: one code each, the message as every site wrote it', () => {
  const loc = { file: 'm.py', line: 3, col: 5 };
  const d = (e: { diagnostic: { code: string; message: string; hint?: string } }) => [e.diagnostic.code, e.diagnostic.message, e.diagnostic.hint];
  assert.equal(d(noSuchParameter('scale', { name: 'ww', loc }, ['q', 'w'], ['q', 'w', 'origin', 'domain'])), ['E_CALL_ARGS', "scale() has no parameter 'ww'", "did you mean 'w'?"]);
  assert.equal(d(noSuchParameter('scale', { name: 'zzzzzz', loc }, ['q', 'w'])), ['E_CALL_ARGS', "scale() has no parameter 'zzzzzz'", 'parameters: q, w']);
  assert.equal(d(tooManyArguments('scale', 2, 3, loc, 'parameters: q, w')), ['E_CALL_ARGS', 'scale() takes 2 arguments, got 3', 'parameters: q, w']);
  assert.equal(d(missingArgument('scale', 'w', loc)), ['E_ARG_MISSING', "scale() is missing argument 'w'", 'pass w=...']);
  assert.equal(d(argumentDtype('q', 'must have dtype float64, got int32')), ['E_ARG_DTYPE', "argument 'q' must have dtype float64, got int32", undefined]);
  assert.equal(d(argumentShape('q', 'has an invalid shape [-1]', { hint: 'h' })), ['E_ARG_SHAPE', "argument 'q' has an invalid shape [-1]", 'h']);
  assert.equal(d(argumentRank('q', 'is declared over IJK')), ['E_ARG_RANK', "argument 'q' is declared over IJK", undefined]);
  assert.equal(d(argumentDevice('q', 'has a null device pointer')), ['E_ARG_DEVICE', "argument 'q' has a null device pointer", undefined]);
  assert.equal(d(nameNotDefined('WEIGTH', loc, ['WEIGHT', 'q'], 'define or import it')), ['E_UNKNOWN_NAME', "name 'WEIGTH' is not defined", "did you mean 'WEIGHT'?"]);
  assert.equal(d(nameNotDefined('zzzzzz', loc, ['WEIGHT'], 'define or import it')), ['E_UNKNOWN_NAME', "name 'zzzzzz' is not defined", 'define or import it']);
  assert.is(nameNotDefined('abc', loc, [], '').diagnostic.length, 3);
  assert.equal(d(badExternal('i_start', 'axis must be "I", "J" or "K"', { hint: 'h' })), ['E_USAGE_EXTERNALS', `external 'i_start': axis must be "I", "J" or "K"`, 'h']);
  assert.equal(d(notSupported('del', 'a program', { loc }, 'h')), ['E_UNSUPPORTED', 'del is not supported in a program', 'h']);
  assert.equal(d(notEvaluated('N', 'calls open()', loc)), ['E_UNKNOWN_NAME', "'N': calls open()", 'only literals and simple arithmetic are evaluated at module level']);
});

test.run();
