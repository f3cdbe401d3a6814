import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { printProgram } from '../core/ir/print.js';
import { verifyProgram } from '../core/ir/verify.js';
import { expandProgram } from '../plugins/libraryExpansion/expandProgram.js';
import { copyPropagation } from '../plugins/simplify/copyPropagation.js';
import { planes } from '../plugins/simplify/planes.js';
import { tiling } from '../plugins/simplify/tiling.js';
import { findEntry, moduleEntries } from '../core/frontend/entries.js';
import { lowerEntry } from '../plugins/parse/lowerEntry.js';
import { ModuleLoader } from '../core/frontend/ModuleLoader.js';
import { parseExternals } from '../core/frontend/externalsJson.js';

/**
 * Pass tests as text fixtures: fixtures/passes/<pass>/<case>/module.py goes through the
 * frontend (with the externals of an optional externals.json) and the pass; the IR printed
 * after it must equal expected.txt beside it.
 * ORCH_UPDATE_FIXTURES=1 rewrites the expectations (review the diff).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../fixtures/passes');
const passes: Record<string, (p: ReturnType<typeof lowerEntry>) => ReturnType<typeof lowerEntry>> = {
  parse: (p) => p,
  libraryExpansion: expandProgram,
  copyPropagation: (p) => copyPropagation(expandProgram(p)),
  // the preset's tile marks every launch at library expansion; the pass keeps what pays
  tiling: (p) => tiling(expandProgram(p, { tile: [8, 8, 16] })),
  planes: (p) => planes(expandProgram(p)),
};

const fixtures = suite('pass fixtures');
for (const pass of readdirSync(root)) {
  for (const c of readdirSync(path.join(root, pass))) {
    const dir = path.join(root, pass, c);
    fixtures(`${pass}/${c}`, () => {
      const loader = new ModuleLoader();
      const scope = loader.load(path.join(dir, 'module.py'));
      const entry = moduleEntries(scope)[0];
      const externalsFile = path.join(dir, 'externals.json');
      const externals = existsSync(externalsFile) ? parseExternals(readFileSync(externalsFile, 'utf8')) : {};
      const before = lowerEntry(loader, findEntry(scope, entry.name), { externals, defines: {} });
      assert.equal(verifyProgram(before), [], 'input verifies');
      const after = passes[pass](before);
      assert.equal(verifyProgram(after), [], 'output verifies');
      const text = printProgram(after).replaceAll(dir, '<dir>') + '\n';
      const expectedFile = path.join(dir, 'expected.txt');
      if (process.env.ORCH_UPDATE_FIXTURES === '1' || !existsSync(expectedFile)) writeFileSync(expectedFile, text);
      assert.fixture(text, readFileSync(expectedFile, 'utf8'));
    });
  }
}
fixtures.run();
