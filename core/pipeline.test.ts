import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BuildCache } from './cache/BuildCache.js';
import { EntryCache } from './cache/EntryCache.js';
import { Compilation } from './Compilation.js';
import type { ResolvedConfig } from './config/types.js';
import { EntryBuild } from './EntryBuild.js';
import type { EntryInputs } from './cache/BuildCache.js';
import { OrchError } from './diagnostics.js';
import { PIPELINE, STAGES, stageTableMarkdown } from './pipeline.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const config = { pythonPath: [] } as unknown as ResolvedConfig;
const options = { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined };
const newBuild = () => new EntryBuild({ module: '/m.py', moduleRel: 'm.py', entry: 's', externals: {}, defines: {}, inputs: {} as EntryInputs });

test('the compilation has one hook per row of the table and runs them in its order', async () => {
  const compilation = new Compilation(config, new EntryCache(new BuildCache('/nonexistent', 'A')), options);
  const ran: string[] = [];
  for (const stage of STAGES) compilation.hooks[stage].tap('record', () => void ran.push(stage));
  const entered: string[] = [];
  compilation.hooks.stage.tap('record', (_b, stage) => void entered.push(stage));
  await compilation.runEntry(newBuild());
  assert.equal(ran, PIPELINE.map((s) => s.name));
  assert.equal(entered, ran);
  const stopped: string[] = [];
  for (const stage of STAGES) compilation.hooks[stage].tap('stop', () => void stopped.push(stage));
  await compilation.runEntry(newBuild(), 'pooling');
  assert.equal(stopped, STAGES.slice(0, STAGES.indexOf('pooling') + 1));
});

test('stage numbers rise along the table; every product is left by one stage', () => {
  const numbers = PIPELINE.map((s) => s.number);
  assert.equal(numbers, [...numbers].sort((a, b) => a - b));
  assert.is(new Set(numbers).size, numbers.length);
  const products = PIPELINE.flatMap((s) => (s.product ? [s.product] : []));
  assert.equal(products, ['parsed', 'expanded', 'generated', 'compiled', 'analyzed', 'emitted']);
});

test('a missing product is an internal error naming the stage that needed it, never a quiet skip', () => {
  const build = newBuild();
  try {
    build.need('compiled', 'emit');
    assert.unreachable('need() must throw');
  } catch (e) {
    assert.instance(e, OrchError);
    assert.is((e as OrchError).diagnostic.code, 'E_INTERNAL');
    assert.match((e as OrchError).message, "emit needs the 'compiled' product of m.py:s, but no stage left it");
  }
  assert.throws(() => build.program, /has no IR/);
  build.provide('compiled', { library: '/x.so', command: [] });
  assert.is(build.need('compiled', 'emit').library, '/x.so');
});

test('docs/plugins.md shows the stage table as the pipeline declares it', () => {
  const doc = readFileSync(path.join(REPO, 'docs/plugins.md'), 'utf8');
  assert.ok(doc.includes(stageTableMarkdown()), `docs/plugins.md must contain:\n${stageTableMarkdown()}`);
});

test.run();
