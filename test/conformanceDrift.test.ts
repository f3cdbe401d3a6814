import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KIT_DIR, TOOLS_DIR } from './conformanceKit.js';

/**
 * The tests read the conformance kit from the repository (test/conformance, test/tools),
 * so a clone with nothing beside it runs them. Where the shared kit sits beside the
 * checkout (CI here), the copy must equal it byte for byte: a new or changed case there
 * fails this test until it is copied in.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const shared = path.resolve(here, '../../../shared');

function files(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const f = path.join(dir, e.name);
    return e.isDirectory() ? files(f, base) : [path.relative(base, f)];
  }).sort();
}

function drift(copy: string, original: string): string[] {
  const a = files(copy);
  const b = files(original);
  const out: string[] = [];
  for (const f of b) if (!a.includes(f)) out.push(`missing in the copy: ${f}`);
  for (const f of a) if (!b.includes(f)) out.push(`not in ${original}: ${f}`);
  for (const f of a.filter((x) => b.includes(x))) {
    if (statSync(path.join(copy, f)).size !== statSync(path.join(original, f)).size
      || !readFileSync(path.join(copy, f)).equals(readFileSync(path.join(original, f)))) out.push(`differs: ${f}`);
  }
  return out;
}

const test = suite('conformance kit copy');

test('the kit is in the repository', () => {
  assert.ok(existsSync(path.join(KIT_DIR, 'index.json')), `no kit in ${KIT_DIR}`);
  assert.ok(readdirSync(path.join(KIT_DIR, 'cases')).length >= 45);
  assert.ok(existsSync(path.join(TOOLS_DIR, 'run_cases.py')));
});

if (existsSync(path.join(shared, 'conformance'))) {
  test('test/conformance equals ../shared/conformance byte for byte', () => {
    const d = drift(KIT_DIR, path.join(shared, 'conformance'));
    assert.equal(d, [], `copy it in: cp -r ../shared/conformance/. test/conformance/\n${d.join('\n')}`);
  });
  test('test/tools equals ../shared/tools byte for byte', () => {
    const d = drift(TOOLS_DIR, path.join(shared, 'tools'));
    assert.equal(d, [], `copy it in: cp ../shared/tools/* test/tools/\n${d.join('\n')}`);
  });
} else {
  test('../shared is absent: the drift check is skipped', () => {
    console.log(`  (no ${shared}: the copy of the conformance kit is not compared)`);
  });
}

test.run();
