import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DebugOptions } from '../core/config/types.js';
import { parseProgram } from '../core/ir/parse.js';
import { printProgram } from '../core/ir/print.js';
import type { Program } from '../core/ir/types.js';
import { verifyProgram } from '../core/ir/verify.js';
import { insertChecks } from '../plugins/debugInsertion/insertChecks.js';
import { expandProgram } from '../plugins/libraryExpansion/expandProgram.js';
import { assignPool } from '../plugins/pooling/assignPool.js';
import { splitRegions } from '../plugins/regionExpansion/splitRegions.js';
import { constantFolding } from '../plugins/simplify/constantFolding.js';
import { copyPropagation } from '../plugins/simplify/copyPropagation.js';
import { deadCode } from '../plugins/simplify/deadCode.js';
import { fusion } from '../plugins/simplify/fusion.js';
import { launchLoopUnroll } from '../plugins/simplify/launchLoopUnroll.js';
import { sweepFusion } from '../plugins/simplify/sweepFusion.js';
import { mergeBlocks } from '../plugins/simplify/mergeBlocks.js';
import { planes } from '../plugins/simplify/planes.js';
import { scalarization } from '../plugins/simplify/scalarization.js';
import { tiling } from '../plugins/simplify/tiling.js';

/**
 * Pass tests as IR text, like xDSL's filecheck tests: fixtures/passes/<pass>/<case>.ir holds
 *
 *     // RUN: <pass> [option | option=value ...]
 *     // what the case shows
 *     <input IR>
 *     // OUTPUT:
 *     <the IR the pass must print>
 *
 * or `// OUTPUT: unchanged` where the pass must refuse. The input and the output must
 * verify; a case expecting a change must show one. ORCH_UPDATE_FIXTURES=1 rewrites the
 * expected output from what the pass prints now (review the diff).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../fixtures/passes');

type Options = Map<string, string | true>;
type PassRun = (p: Program, opts: Options) => Program;

function noOptions(pass: (p: Program) => Program): PassRun {
  return (p, opts) => {
    assert.is([...opts.keys()].join(', '), '', 'this pass takes no options');
    return pass(p);
  };
}

function tileOption(v: string | true | undefined): [number, number] | [number, number, number] | undefined {
  if (v === undefined) return undefined;
  const dims = String(v).split('x').map(Number);
  assert.ok((dims.length === 2 || dims.length === 3) && dims.every((d) => Number.isInteger(d) && d > 0), `tile=${v}: write tile=8x8 or tile=8x8x16`);
  return dims as [number, number] | [number, number, number];
}

function debugOptions(opts: Options): DebugOptions {
  for (const k of opts.keys()) assert.ok(['nan', 'delp', 'tracers', 'threshold', 'action'].includes(k), `unknown debugInsertion option '${k}'`);
  const action = opts.get('action') ?? 'abort';
  assert.ok(action === 'abort' || action === 'log', `action=${action}: abort or log`);
  return {
    enabled: true,
    nan: opts.has('nan'),
    delp: opts.has('delp'),
    tracers: opts.has('tracers') ? String(opts.get('tracers')).split(',') : [],
    threshold: opts.has('threshold') ? Number(opts.get('threshold')) : 0,
    action: action as 'abort' | 'log',
  };
}

/** Every pass orch runs, by the name a RUN line gives it. */
const PASSES: Record<string, PassRun> = {
  constantFolding: noOptions(constantFolding),
  copyPropagation: noOptions(copyPropagation),
  deadCode: noOptions(deadCode),
  fusion: noOptions(fusion),
  sweepFusion: noOptions(sweepFusion),
  loopUnroll: noOptions(launchLoopUnroll),
  mergeBlocks: noOptions(mergeBlocks),
  scalarization: noOptions(scalarization),
  tiling: noOptions(tiling),
  planes: noOptions(planes),
  regionExpansion: noOptions(splitRegions),
  libraryExpansion: (p, opts) => {
    for (const k of opts.keys()) assert.is(k, 'tile', `unknown libraryExpansion option '${k}'`);
    return expandProgram(p, { tile: tileOption(opts.get('tile')) });
  },
  pooling: noOptions(assignPool),
  debugInsertion: (p, opts) => insertChecks(p, debugOptions(opts)),
};

interface PassCase {
  pass: string;
  options: Options;
  /** the RUN line and the comments after it */
  head: string[];
  input: string;
  /** null: the pass must leave the input as it is */
  output: string | null;
  /** whether the file has an OUTPUT section at all */
  hasOutput: boolean;
}

function readCase(file: string): PassCase {
  const lines = readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
  const run = lines[0].match(/^\/\/ RUN: (\S+)(.*)$/);
  assert.ok(run, `${file}:1: the first line is '// RUN: <pass> [options]'`);
  const options: Options = new Map();
  for (const o of run[2].trim().split(/\s+/).filter(Boolean)) {
    const eq = o.indexOf('=');
    options.set(eq < 0 ? o : o.slice(0, eq), eq < 0 ? true : o.slice(eq + 1));
  }
  let n = 1;
  while (n < lines.length && lines[n].startsWith('//')) n++;
  const head = lines.slice(0, n);
  const out = lines.findIndex((l) => l.startsWith('// OUTPUT:'));
  const input = lines.slice(n, out < 0 ? undefined : out).join('\n');
  if (out < 0) return { pass: run[1], options, head, input, output: null, hasOutput: false };
  const unchanged = lines[out].trim() === '// OUTPUT: unchanged';
  assert.ok(unchanged || lines[out].trim() === '// OUTPUT:', `${file}:${out + 1}: write '// OUTPUT:' followed by the IR, or '// OUTPUT: unchanged'`);
  return { pass: run[1], options, head, input, output: unchanged ? null : lines.slice(out + 1).join('\n'), hasOutput: true };
}

const fixtures = suite('pass fixtures (IR text)');

fixtures('every pass has IR text cases', () => {
  assert.equal(readdirSync(root).sort(), Object.keys(PASSES).sort());
});

for (const pass of readdirSync(root).sort()) {
  fixtures(`${pass} has a case where it fires and one where it refuses`, () => {
    const cases = readdirSync(path.join(root, pass))
      .filter((f) => f.endsWith('.ir'))
      .map((f) => ({ name: f, ...readCase(path.join(root, pass, f)) }));
    // a refusal either leaves the IR as it is or, named refused-*, shows what the pass undid
    const refused = (c: (typeof cases)[number]) => (c.hasOutput && c.output === null) || c.name.startsWith('refused-');
    assert.ok(cases.some((c) => c.output !== null && !refused(c)), `${pass}: no case where the pass changes the IR`);
    assert.ok(cases.some(refused), `${pass}: no case where the pass must refuse ('OUTPUT: unchanged', or a file named refused-*)`);
  });
  for (const f of readdirSync(path.join(root, pass)).sort()) {
    if (!f.endsWith('.ir')) continue;
    const file = path.join(root, pass, f);
    fixtures(`${pass}/${f}`, () => {
      const c = readCase(file);
      assert.is(c.pass, pass, `${file}: the RUN line names the folder's pass`);
      const run = PASSES[c.pass];
      assert.ok(run, `unknown pass '${c.pass}'; known: ${Object.keys(PASSES).join(', ')}`);
      const before = parseProgram(c.input, file);
      assert.equal(verifyProgram(before), [], 'input verifies');
      assert.fixture(printProgram(before), c.input, 'the input is printed IR');
      const after = run(before, c.options);
      assert.equal(verifyProgram(after), [], 'output verifies');
      const text = printProgram(after);
      if (process.env.ORCH_UPDATE_FIXTURES === '1' || !c.hasOutput) {
        const out = text === c.input ? ['// OUTPUT: unchanged'] : ['// OUTPUT:', text];
        writeFileSync(file, [...c.head, c.input, ...out].join('\n') + '\n');
        return;
      }
      if (c.output === null) assert.fixture(text, c.input, 'the pass must leave this IR as it is');
      else {
        assert.not.equal(c.output, c.input, 'a case expecting a change shows one (else write OUTPUT: unchanged)');
        assert.fixture(text, c.output);
      }
    });
  }
}
fixtures.run();
