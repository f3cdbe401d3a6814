import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveConfig as resolveWith } from '../../core/config/loadConfig.js';
import { presets } from '../../presets/index.js';
import { backends } from '../backends/index.js';
import { builtinPlugins } from '../builtins.js';
import { Compilation } from '../../core/Compilation.js';
import { Compiler } from '../../core/Compiler.js';
import { SIMPLIFY_PASSES, simplifyTableMarkdown } from './SimplifyPlugin.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const resolveConfig = (over: Parameters<typeof resolveWith>[1]) => resolveWith({ stages: builtinPlugins, presets, backends }, over);
const quiet = { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined };

/** The taps of the two simplify stages of a fresh compilation of `compiler`, as `stage order name`. */
function simplifyTaps(compiler: Compiler): string[] {
  let compilation: Compilation | undefined;
  compiler.hooks.compilation.tap('test', (c) => void (compilation = c));
  compiler.hooks.compilation.call(new Compilation(compiler.config, compiler.cache, quiet));
  return (['simplify1', 'simplify2'] as const).flatMap((s) => compilation!.hooks[s].taps.map((t) => `${s} ${t.stage} ${t.name}`));
}

test('every simplify pass is its own tap, in the order of its tap stage number', async () => {
  const config = await resolveConfig({ configFile: null });
  const taps = simplifyTaps(new Compiler(config, quiet));
  assert.equal(taps, SIMPLIFY_PASSES.map((p) => `${p.stage} ${p.order} orch:${p.name}`));
  for (const stage of ['simplify1', 'simplify2']) {
    const orders = SIMPLIFY_PASSES.filter((p) => p.stage === stage).map((p) => p.order);
    assert.equal(orders, [...orders].sort((a, b) => a - b), `${stage}: the list is written in run order`);
  }
});

test('passes: { fusion: false } leaves fusion untapped and every other pass in place', async () => {
  const config = await resolveConfig({ configFile: null });
  const taps = simplifyTaps(new Compiler({ ...config, passes: { ...config.passes, fusion: false, deadCode: false } }, quiet));
  assert.equal(taps, SIMPLIFY_PASSES.filter((p) => p.name !== 'fusion' && p.name !== 'deadCode').map((p) => `${p.stage} ${p.order} orch:${p.name}`));
});

test('docs/plugins.md lists the simplify passes as SIMPLIFY_PASSES declares them', () => {
  const doc = readFileSync(path.join(REPO, 'docs/plugins.md'), 'utf8');
  assert.ok(doc.includes(simplifyTableMarkdown()), `docs/plugins.md must contain:\n${simplifyTableMarkdown()}`);
});

test.run();
