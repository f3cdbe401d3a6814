import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CODES, codeTableMarkdown, isCode, notIntegers } from './codes.js';

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

test('a list option that is not integers is a usage error of its own code', () => {
  assert.is(notIntegers('shape', '1,x').diagnostic.code, 'E_USAGE_SHAPE');
  assert.is(notIntegers('domain', '1,,2').diagnostic.message, "--domain expects integers separated by commas, got '1,,2'");
  assert.is(notIntegers('origin', 'a').diagnostic.hint, 'write --origin 1,2,3');
});

test.run();
