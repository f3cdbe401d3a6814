import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readNpy } from '../core/runtime/npy.js';
import { REPO, stencilModule, TempProject } from './TempProject.js';

/**
 * The plugin API end to end, through orch.config.ts in a user's project: the worked
 * example in fixtures/plugins/, plugin errors, and compiler errors in generated code.
 */

const plugins = suite('plugins');

const EXAMPLE = readFileSync(path.join(REPO, 'fixtures/plugins/exactReciprocal.ts'), 'utf8');

/** The generated C++ of the latest build of module m, entry s. */
function generatedCpp(p: TempProject, entry = 's'): string {
  const root = p.path(`.gt_cache_A/m/${entry}`);
  const latest = JSON.parse(readFileSync(path.join(root, 'latest.json'), 'utf8')) as { key: string };
  const dir = path.join(root, latest.key);
  const cpp = readdirSync(dir).find((f) => f.endsWith('.cpp'))!;
  return readFileSync(path.join(dir, cpp), 'utf8');
}

plugins('the example pass plugin rewrites the IR between library expansion and pooling, visibly and exactly', async () => {
  const p = new TempProject('plugin-example');
  p.write('m.py', stencilModule('s', 'a / 4.0 + w / 3.0'));
  p.write('plugins/exactReciprocal.ts', EXAMPLE);

  // without the plugin: a division by 4.0
  p.write('orch.config.ts', "import { defineConfig } from 'orch';\nexport default defineConfig({ modules: ['m.py'] });\n");
  const plain = await p.orch(['run', 'm.py:s', '--mode', 'build-and-run', '--shape', '5,4,3', '--scalars', '{"w": 1.5}', '--out', 'plain', '--json']);
  assert.is(plain.code, 0, plain.stderr);
  assert.match(generatedCpp(p), '/ 4.0)');

  // with it: a multiplication by 0.25, the division by 3.0 untouched, same results bit for bit
  p.write(
    'orch.config.ts',
    "import { defineConfig } from 'orch';\nimport exactReciprocal from './plugins/exactReciprocal.ts';\n\nexport default defineConfig({ modules: ['m.py'], plugins: [exactReciprocal] });\n",
  );
  const withPass = await p.orch(['run', 'm.py:s', '--mode', 'build-and-run', '--shape', '5,4,3', '--scalars', '{"w": 1.5}', '--out', 'rewritten', '--json', '--check', '--verify-ir']);
  assert.is(withPass.code, 0, withPass.stderr);
  const report = JSON.parse(withPass.stdout);
  assert.is(report.cache, 'miss', 'the plugin is part of the cache key');
  assert.ok(report.check.passed, 'compiled matches the interpreter');
  const cpp = generatedCpp(p);
  assert.match(cpp, '* 0.25)');
  assert.not.match(cpp, '/ 4.0)');
  assert.match(cpp, '/ 3.0)');
  const b0 = readNpy(p.path('plain/b.npy')).data as Float64Array;
  const b1 = readNpy(p.path('rewritten/b.npy')).data as Float64Array;
  assert.equal([...b1], [...b0]);

  // --print-ir-after names the plugin's pass
  const ir = await p.orch(['run', 'm.py:s', '--mode', 'python', '--shape', '5,4,3', '--scalars', '{"w": 1.5}', '--print-ir-after', 'exact-reciprocal', '--time-passes']);
  assert.is(ir.code, 0, ir.stderr);
  assert.match(ir.stderr, '// IR after exact-reciprocal (exact-reciprocal in libraryExpansion)');
  assert.match(ir.stderr, /\d+\.\d+%\s+libraryExpansion:exact-reciprocal\n/, '--time-passes lists the custom pass');
  assert.match(ir.stderr, '* 0.25)');

  // the build info records the plugin and its version
  const info = await p.orch(['info', 'm.py', '--json']);
  const rows = JSON.parse(info.stdout);
  assert.equal(rows[0].build.plugins, ['exact-reciprocal@1']);
});

plugins('an error thrown inside a plugin names the plugin and the hook', async () => {
  const p = new TempProject('plugin-error');
  p.write('m.py', stencilModule('s', 'w * a'));
  p.write(
    'orch.config.ts',
    `import { defineConfig, PassPlugin } from 'orch';
export default defineConfig({
  modules: ['m.py'],
  plugins: [new PassPlugin({ name: 'boom', hook: 'pooling', stage: -5, run() { throw new Error('kaboom'); } })],
});
`,
  );
  const r = await p.orch(['build', '--json']);
  assert.is(r.code, 1);
  assert.match(r.stderr, "error E_PLUGIN: plugin 'boom' threw in hook 'pooling': kaboom [plugin boom, hook pooling]");
  assert.match(r.stderr, "hint: fix the plugin 'boom'");
  assert.not.match(r.stderr, /\n\s+at .*\.js:\d+/, 'the stack trace is kept for --verbose only');
  const j = JSON.parse(r.stdout);
  assert.is(j.errors[0].plugin, 'boom');
  assert.is(j.errors[0].hook, 'pooling');
  const verbose = await p.orch(['build', '--verbose']);
  assert.match(verbose.stderr, /kaboom\n\s+at /);
});

plugins("a plugin's own user error (fail from 'orch') is printed as that error, not as the plugin crashing", async () => {
  // the config's 'orch' must be the CLI's own copy of the API: with a second copy (the bundled
  // CLI beside dist/index.js), its OrchError is not the CLI's and reads as a crash (E_PLUGIN)
  const p = new TempProject('plugin-fail');
  p.write('m.py', stencilModule('s', 'w * a'));
  p.write(
    'orch.config.ts',
    `import { defineConfig, fail, PassPlugin } from 'orch';
export default defineConfig({
  modules: ['m.py'],
  plugins: [new PassPlugin({ name: 'strict', hook: 'pooling', stage: -5, run() { fail('E_UNSUPPORTED', 'strict refuses this stencil', { hint: 'ask strict' }); } })],
});
`,
  );
  const r = await p.orch(['build', '--json']);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, 'error E_UNSUPPORTED: strict refuses this stencil');
  assert.match(r.stderr, 'hint: ask strict');
  assert.not.match(r.stderr, 'E_PLUGIN');
  const j = JSON.parse(r.stdout);
  assert.is(j.errors[0].code, 'E_UNSUPPORTED');
  assert.is(j.errors[0].plugin, 'strict', 'the error names the plugin that raised it');
});

plugins('a C++ error in generated code lands on the .py line through #line; --verbose keeps g++ output', async () => {
  const p = new TempProject('plugin-cxx');
  p.write('m.py', stencilModule('s', 'w * a'));
  // a plugin that breaks the generated C++ in the statement mapped to line 7 of m.py (b = w * a)
  p.write(
    'orch.config.ts',
    `import { readFileSync, writeFileSync } from 'node:fs';
import { defineConfig, tapStage, type OrchPlugin } from 'orch';

const breakCpp: OrchPlugin = {
  name: 'break-cpp',
  apply(compiler) {
    tapStage(compiler, 'codegen', 'break-cpp', (build) => {
      const file = build.need('generated', 'break-cpp').file;
      const lines = readFileSync(file, 'utf8').split('\\n');
      const at = lines.findIndex((l) => /^#line 7 ".*m\\.py"$/.test(l));
      lines.splice(at + 1, 0, '  this_is_not_cpp = 1;');
      writeFileSync(file, lines.join('\\n'));
    }, 10);
  },
};

export default defineConfig({ modules: ['m.py'], plugins: [breakCpp] });
`,
  );
  const r = await p.orch(['build']);
  assert.is(r.code, 1);
  assert.match(r.stderr, `${p.path('m.py')}:7:1: error E_CXX: C++ compiler: `);
  assert.match(r.stderr, /.this_is_not_cpp. was not declared in this scope/);
  assert.match(r.stderr, '> 7 |         b = w * a');
  assert.match(r.stderr, 'hint: this statement produced C++ the compiler rejected');
  assert.not.match(r.stderr, 'In function', 'raw g++ output only with --verbose');
  const v = await p.orch(['build', '--verbose']);
  // the statement sits in a parallel region, which the generated code writes as a lambda
  assert.match(v.stderr, /In (function .int \{anonymous\}::run_program|lambda function)/);
  assert.match(v.stderr, /m\.py:7:3: error: .this_is_not_cpp. was not declared/);
});

plugins('docs/plugins.md shows the example plugin exactly as the tests build it', () => {
  const doc = readFileSync(path.join(REPO, 'docs/plugins.md'), 'utf8');
  assert.ok(doc.includes(`<!-- file: plugins/exactReciprocal.ts -->\n\`\`\`ts\n${EXAMPLE}\`\`\``), 'the worked example in the docs is fixtures/plugins/exactReciprocal.ts');
});

plugins.run();
