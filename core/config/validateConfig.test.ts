import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatDiagnostic, OrchError } from '../diagnostics.js';
import { loadConfigFile } from './loadConfig.js';
import { validateConfig } from './validateConfig.js';

/** A config file with `body` inside defineConfig({...}), and the object it exports. */
function configFile(body: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-config-'));
  const file = path.join(dir, 'orch.config.ts');
  writeFileSync(file, `import { defineConfig } from 'orch';\n\nexport default defineConfig({\n  modules: ['a.py'],\n  ${body}\n});\n`);
  return file;
}

function diagnosticOf(cfg: unknown, file: string): string {
  try {
    validateConfig(cfg, file);
  } catch (e) {
    if (e instanceof OrchError) return formatDiagnostic(e.diagnostic).replaceAll(file, '<config>');
    throw e;
  }
  return 'no error';
}

test('a string where a boolean goes is an error at the key, with the value to write', () => {
  const file = configFile("codegen: { openmp: 'yes' },");
  assert.fixture(
    diagnosticOf({ modules: ['a.py'], codegen: { openmp: 'yes' } }, file),
    [
      `<config>:5:14: error E_CONFIG_VALUE: 'codegen.openmp' must be true or false, not the string "yes" (in orch.config.ts)`,
      '  3 | export default defineConfig({',
      "  4 |   modules: ['a.py'],",
      "> 5 |   codegen: { openmp: 'yes' },",
      '    |              ^^^^^^',
      '  6 | });',
      'hint: write codegen: { openmp: true }',
    ].join('\n'),
  );
});

test("passes: { fusion: 'off' } is an error, not a pass left on", () => {
  const file = configFile("passes: { fusion: 'off' },");
  assert.fixture(
    diagnosticOf({ modules: ['a.py'], passes: { fusion: 'off' } }, file),
    [
      `<config>:5:13: error E_CONFIG_VALUE: 'passes.fusion' must be true or false (false turns the pass off), not the string "off" (in orch.config.ts)`,
      '  3 | export default defineConfig({',
      "  4 |   modules: ['a.py'],",
      "> 5 |   passes: { fusion: 'off' },",
      '    |             ^^^^^^',
      '  6 | });',
      'hint: write passes: { fusion: false }',
    ].join('\n'),
  );
});

test("compiler.extraFlags: '-Wall' is an error that shows the list to write, not a g++ error", () => {
  const file = configFile("compiler: { extraFlags: '-Wall' },");
  assert.fixture(
    diagnosticOf({ modules: ['a.py'], compiler: { extraFlags: '-Wall' } }, file),
    [
      `<config>:5:15: error E_CONFIG_VALUE: 'compiler.extraFlags' must be a list of strings, not the string "-Wall" (in orch.config.ts)`,
      '  3 | export default defineConfig({',
      "  4 |   modules: ['a.py'],",
      "> 5 |   compiler: { extraFlags: '-Wall' },",
      '    |               ^^^^^^^^^^',
      '  6 | });',
      "hint: write compiler: { extraFlags: ['-Wall'] } (a list, even of one)",
    ].join('\n'),
  );
});

test('a misspelt nested key gets a did-you-mean at its place', () => {
  const file = configFile('codegen: { loopOrdr: "KJI" },');
  assert.fixture(
    diagnosticOf({ modules: ['a.py'], codegen: { loopOrdr: 'KJI' } }, file),
    [
      "<config>:5:14: error E_CONFIG_KEY: unknown config key 'codegen.loopOrdr' in orch.config.ts",
      '  3 | export default defineConfig({',
      "  4 |   modules: ['a.py'],",
      '> 5 |   codegen: { loopOrdr: "KJI" },',
      '    |              ^^^^^^^^',
      '  6 | });',
      "hint: did you mean 'codegen.loopOrder'?",
    ].join('\n'),
  );
});

test('every value is checked: loop orders, tuples, enums, defines, plugins', () => {
  const file = configFile('');
  const codes = (cfg: unknown) => diagnosticOf(cfg, file).split('\n')[0];
  assert.match(codes({ codegen: { loopOrder: 'IJJ' } }), "'codegen.loopOrder' must be a loop order");
  assert.match(codes({ codegen: { blockSize: [32, 4] } }), "'codegen.blockSize' must be [x, y, z], positive integers, not a list of 2");
  assert.match(codes({ debug: { action: 'warn' } }), `'debug.action' must be 'abort' or 'log', not the string "warn"`);
  assert.match(codes({ defines: { n: '3' } }), `'defines.n' must be a number or a boolean, not the string "3"`);
  assert.match(codes({ plugins: [{ name: 'p' }] }), "'plugins' must be a list of plugins");
  assert.match(codes({ layout: { layout: '3by3', domain: [4, 4, 4] } }), "'layout.layout' must be a rank layout 'NXxNY'");
  assert.is(codes({ modules: ['*.py'], codegen: { tile: false, loopOrder: 'KJI' }, passes: { fusion: false }, defines: { n: 2, f: true } }), 'no error');
});

test('a syntax error in the config file has its line, column and frame', async () => {
  const file = configFile("preset: 'cpu'\n  codegen: {},");
  try {
    await loadConfigFile(file);
    assert.unreachable('the config loaded');
  } catch (e) {
    assert.instance(e, OrchError);
    assert.fixture(
      formatDiagnostic((e as OrchError).diagnostic).replaceAll(file, '<config>'),
      [
        '<config>:6:3: error E_CONFIG_LOAD: syntax error in orch.config.ts: Unexpected token, expected ","',
        "  4 |   modules: ['a.py'],",
        "  5 |   preset: 'cpu'",
        '> 6 |   codegen: {},',
        '    |   ^',
        '  7 | });',
        'hint: fix the syntax at the caret (or just before it: a missing comma or bracket shows at the next token)',
      ].join('\n'),
    );
  }
});

test.run();
