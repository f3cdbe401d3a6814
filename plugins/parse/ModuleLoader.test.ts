import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OrchError } from '../../core/diagnostics.js';
import { ModuleLoader } from './ModuleLoader.js';

const loader = suite('ModuleLoader');

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof OrchError ? e.diagnostic.code : String(e);
  }
  return undefined;
}

loader('a broken module gives every importer its own error, not an import cycle', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-loader-'));
  writeFileSync(path.join(dir, 'consts.py'), 'GAIN = 4.0 +\n');
  writeFileSync(path.join(dir, 'a.py'), 'from consts import GAIN\n');
  writeFileSync(path.join(dir, 'b.py'), 'import consts\n');
  const l = new ModuleLoader();
  assert.is(codeOf(() => l.load(path.join(dir, 'a.py'))), 'E_SYNTAX');
  assert.is(codeOf(() => l.load(path.join(dir, 'b.py'))), 'E_SYNTAX');
  assert.ok(l.filesRead.has(path.join(dir, 'consts.py')), 'the broken module is recorded as read');
});

loader.run();
