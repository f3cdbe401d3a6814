import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatDiagnostic } from '../core/diagnostics.js';
import { colourOn, painterFor } from './colour.js';

test('colour on a TTY, plain when not, with NO_COLOR, or FORCE_COLOR=0; FORCE_COLOR=1 forces it', () => {
  assert.is(colourOn({ isTTY: true }, {}), true);
  assert.is(colourOn({ isTTY: false }, {}), false);
  assert.is(colourOn({}, {}), false);
  assert.is(colourOn({ isTTY: true }, { NO_COLOR: '1' }), false);
  assert.is(colourOn({ isTTY: true }, { FORCE_COLOR: '0' }), false);
  assert.is(colourOn({ isTTY: false }, { FORCE_COLOR: '1' }), true);
});

test('a coloured diagnostic paints the location, the severity, the caret and the hint; its text is the plain one', () => {
  const d = { code: 'E_SYNTAX' as const, severity: 'error' as const, message: 'bad', hint: 'fix it', loc: { file: 'm.py', line: 1, col: 2 }, frame: '> 1 | ab\n    |  ^' };
  const plain = formatDiagnostic(d);
  const paint = painterFor({ isTTY: true }, {})!;
  const coloured = formatDiagnostic(d, { paint });
  assert.is(plain, 'm.py:1:2: error E_SYNTAX: bad\n> 1 | ab\n    |  ^\nhint: fix it');
  assert.is(coloured, '\x1b[36mm.py:1:2:\x1b[39m \x1b[1m\x1b[31merror E_SYNTAX:\x1b[39m\x1b[22m bad\n> 1 | ab\n    |  \x1b[31m^\x1b[39m\n\x1b[32mhint:\x1b[39m fix it');
  assert.is(coloured.replace(/\x1b\[\d+m/g, ''), plain);
  assert.is(painterFor({ isTTY: true }, { NO_COLOR: '1' }), undefined);
});

test.run();
