import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { printProgram } from '../core/ir/print.js';
import { verifyProgram } from '../core/ir/verify.js';
import { findEntry, moduleEntries } from '../core/frontend/entries.js';
import { parseExternals } from '../core/frontend/externalsJson.js';
import { ModuleLoader } from '../core/frontend/ModuleLoader.js';
import { lowerEntry } from '../plugins/parse/lowerEntry.js';

/**
 * What the frontend makes of Python: fixtures/frontend/<case>/module.py (with the externals
 * of an optional externals.json) lowers to the IR in expected.ir beside it, the input
 * the passes' IR text tests (fixtures/passes) start from.
 * ORCH_UPDATE_FIXTURES=1 rewrites the expectations (review the diff).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../fixtures/frontend');

const frontend = suite('frontend fixtures');
for (const c of readdirSync(root).sort()) {
  const dir = path.join(root, c);
  frontend(c, () => {
    const loader = new ModuleLoader();
    const scope = loader.load(path.join(dir, 'module.py'));
    const entries = moduleEntries(scope);
    const externalsFile = path.join(dir, 'externals.json');
    const externals = existsSync(externalsFile) ? parseExternals(readFileSync(externalsFile, 'utf8')) : {};
    const p = lowerEntry(loader, findEntry(scope, entries[0].name), { externals, defines: {} });
    assert.equal(verifyProgram(p), [], 'the lowered program verifies');
    const text = printProgram(p) + '\n';
    const expectedFile = path.join(dir, 'expected.ir');
    if (process.env.ORCH_UPDATE_FIXTURES === '1' || !existsSync(expectedFile)) writeFileSync(expectedFile, text);
    assert.fixture(text, readFileSync(expectedFile, 'utf8'));
  });
}
frontend.run();
