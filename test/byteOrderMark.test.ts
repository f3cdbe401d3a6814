import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stencilModule, TempProject } from './TempProject.js';

/** A UTF-8 byte order mark at the start of a module (issue 12, item 15): Python skips it, so orch does. */

const bom = suite('byte order mark');

bom('a module that starts with a BOM builds, hits, runs and frames errors at the right column', async () => {
  const p = new TempProject('bom');
  p.write('m.py', `\uFEFF${stencilModule('s', 'a * w')}`);
  const args = ['run', 'm.py:s', '--shape', '2,2,2', '--scalars', '{"w": 2.0}', '--json'];
  const py = await p.orch(args);
  assert.is(py.code, 0, py.stderr);
  const built = await p.orch([...args, '--mode', 'build-and-run', '--check']);
  assert.is(built.code, 0, built.stderr);
  assert.is(JSON.parse(built.stdout).cache, 'miss');
  assert.ok(JSON.parse(built.stdout).check.passed);
  const again = await p.orch([...args, '--mode', 'run']);
  assert.is(again.code, 0, again.stderr);
  assert.is(JSON.parse(again.stdout).cache, 'hit', 'the BOM does not make every lookup a miss');
  p.write('bad.py', '\uFEFFx = 1 +\n');
  const bad = await p.orch(['build', 'bad.py'], { NO_COLOR: '1' });
  assert.is(bad.code, 1);
  assert.match(bad.stderr, `${p.path('bad.py')}:1:8: error E_SYNTAX`);
  assert.match(bad.stderr, '> 1 | x = 1 +\n    |        ^');
});

bom.run();
