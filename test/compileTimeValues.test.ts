import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO, stencilModule, TempProject } from './TempProject.js';
import { withinSeconds } from './withinSeconds.js';

/**
 * Compile-time values from the command line (issue 12, item 13): axis-index externals and
 * --define values the declared type cannot hold are usage errors (exit 2) in every mode,
 * never a plugin error, a hang, or a value silently coerced.
 */

const values = suite('compile-time values');

values('axis-index externals take integer index and offset only', async () => {
  const p = new TempProject('ctvalues');
  p.write('m.py', stencilModule('s', 'a * w'));
  const cases: [string, string][] = [
    ['{"i_start": {"axis": "I", "index": "-1", "offset": 0}}', `external 'i_start': "index" must be an integer from -2147483647 to 2147483647, got "-1"`],
    ['{"i_start": {"axis": "I", "index": 0.5, "offset": 0}}', `external 'i_start': "index" must be an integer from -2147483647 to 2147483647, got 0.5`],
    ['{"i_start": {"axis": "I", "index": 0, "offset": 1e12}}', `external 'i_start': "offset" must be an integer from -2147483647 to 2147483647, got 1e12`],
    ['{"i_start": {"axis": "I", "index": 0, "offset": 99999999999}}', `external 'i_start': "offset" must be an integer from -2147483647 to 2147483647, got 99999999999`],
    ['{"i_start": {"axis": "I", "index": 0, "offset": null}}', `external 'i_start': "offset" must be an integer from -2147483647 to 2147483647, got null`],
  ];
  for (const mode of ['python', 'build-and-run']) {
    for (const [json, message] of cases) {
      const r = await p.orch(['run', 'm.py:s', '--mode', mode, '--shape', '2,2,2', '--scalars', '{"w": 1.0}', '--externals', json], { NO_COLOR: '1' });
      assert.is(r.stderr.trimEnd(), `error E_USAGE_EXTERNALS: ${message}\nhint: write {"i_start": {"axis": "I", "index": 0, "offset": 3}} with plain integers`, json);
      assert.is(r.code, 2, json);
    }
  }
  const ok = await p.orch(['run', 'm.py:s', '--shape', '2,2,2', '--scalars', '{"w": 1.0}', '--externals', '{"i_start": {"axis": "I", "index": -1, "offset": 2}}']);
  assert.is(ok.code, 0, ok.stderr);
});

values('--define of a fraction, a huge number or an infinity names the argument, its type and range', async () => {
  const p = new TempProject('ctvalues');
  const src = readFileSync(`${REPO}/fixtures/programs/smoother.py`, 'utf8');
  const file = p.write('sm.py', src);
  const line = src.split('\n').findIndex((l) => l.startsWith('def smoother_function')) + 1;
  const text = src.split('\n')[line - 1];
  const col = (name: string) => text.indexOf(`${name}: compiletime`) + 1;
  const frame = (name: string) => `  ${line - 2} | \n  ${line - 1} | @program\n> ${line} | ${text}\n${' '.repeat(String(line).length + 3)}| ${' '.repeat(col(name) - 1)}^\n  ${line + 1} | ${src.split('\n')[line]}`;
  const run = (define: string, mode = 'python') => p.orch(['run', 'sm.py:smoother_function', '--mode', mode, '--shape', '6,6,2', '--scalars', '{"w": 0.1}', '--define', define], { NO_COLOR: '1' });
  const cases: [string, string, string][] = [
    ['n_iter=2.5', `--define n_iter=2.5: compile-time argument 'n_iter' of 'smoother_function' is an int (int64), which takes integers from -9007199254740991 to 9007199254740991`, 'write an integer, e.g. --define n_iter=2'],
    ['n_iter=1e20', `--define n_iter=100000000000000000000: compile-time argument 'n_iter' of 'smoother_function' is an int (int64), which takes integers from -9007199254740991 to 9007199254740991`, 'write an integer, e.g. --define n_iter=9007199254740991'],
    ['gain=1e400', `--define gain=Infinity: compile-time argument 'gain' of 'smoother_function' is a float (float64), which takes finite numbers`, 'write a finite number, e.g. --define gain=1.0'],
  ];
  for (const mode of ['python', 'build']) {
    for (const [define, message, hint] of cases) {
      const r = await withinSeconds(30, `--define ${define} did not finish in 30 s`, run(define, mode));
      const name = define.split('=')[0];
      assert.is(r.stderr.trimEnd(), `${file}:${line}:${col(name)}: error E_USAGE_DEFINE: ${message}\n${frame(name)}\nhint: ${hint}`, define);
      assert.is(r.code, 2, define);
    }
  }
  const ok = await run('n_iter=2');
  assert.is(ok.code, 0, ok.stderr);
});

values.run();
