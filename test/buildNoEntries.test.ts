import { writeFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stencilModule, TempProject } from './TempProject.js';

/** `orch build m.py` where m.py holds no entry is an error saying what m.py holds, not 0 entries and exit 0. */

const noEntries = suite('build: a module with no entries');

noEntries('a module that only imports a stencil names the import and the module to build', async () => {
  const p = new TempProject('no-entries');
  writeFileSync(p.path('stencils.py'), stencilModule('smooth', 'a + w'));
  writeFileSync(p.path('m.py'), 'from stencils import smooth\n\n\ndef helper(x):\n    return x\n');
  const r = await p.orch(['build', 'm.py']);
  assert.is(r.code, 1, r.stderr);
  assert.fixture(
    r.stderr.replaceAll(p.dir, '<dir>').trim(),
    [
      '<dir>/m.py:1:1: error E_NO_ENTRIES: m.py has no stencil or program to build: it has a function helper that is not a stencil or program and the import smooth (from stencils)',
      '> 1 | from stencils import smooth',
      '    | ^',
      '  2 | ',
      'hint: build the module that defines smooth (stencils.py), or decorate a function here with @stencil or @program',
    ].join('\n'),
  );
  const ok = await p.orch(['build', 'stencils.py', '--quiet']);
  assert.is(ok.code, 0, ok.stderr);
});

noEntries.run();
