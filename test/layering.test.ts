import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO } from './TempProject.js';

/**
 * The layers, top to bottom: bin (argument parsing) -> cli (commands, and the toolset that
 * hands the stages and presets to the core) -> plugins, presets -> core. A layer imports
 * only from layers below it; the core stands alone.
 */

/** Every module specifier a TypeScript source imports or re-exports, dynamic imports included. */
function importsOf(src: string): string[] {
  const specs: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s+(?:type\s+)?[^;'"`]*?\bfrom\s*(['"])([^'"]+)\1/gm, // import x from, export * from
    /^\s*import\s*(['"])([^'"]+)\1/gm, // side-effect import
    /\bimport\(\s*(['"`])([^'"`]+)\1\s*\)/g, // dynamic import with a literal
  ];
  for (const re of patterns) for (const m of src.matchAll(re)) specs.push(m[2]);
  return specs;
}

/** `import(expr)` with anything but a string literal: a dependency no scan can see. */
function computedImports(src: string): string[] {
  return [...src.matchAll(/(?<![.\w])import\(\s*([^'"`\s)][^)]*)\)/g)].map((m) => m[1]);
}

function sources(dir: string): string[] {
  return readdirSync(path.join(REPO, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f));
}

/** The top folder (layer) a specifier in `file` points at; bare package names map to themselves. */
function layerOf(file: string, spec: string): string {
  if (!spec.startsWith('.')) return spec === 'orch' || spec.startsWith('orch/') ? 'index.ts' : 'package';
  const rel = path.relative(REPO, path.resolve(REPO, path.dirname(file), spec));
  return rel.startsWith('..') ? rel : rel.split(path.sep)[0];
}

/** `file: spec` for every import in `dir` whose layer `allowed` refuses. */
function violations(dir: string, allowed: (layer: string) => boolean): { checked: number; bad: string[] } {
  const bad: string[] = [];
  let checked = 0;
  for (const file of sources(dir)) {
    const src = readFileSync(path.join(REPO, file), 'utf8');
    for (const spec of importsOf(src)) {
      checked++;
      const layer = layerOf(file, spec);
      if (!allowed(layer)) bad.push(`${file}: '${spec}' (${layer})`);
    }
    for (const expr of computedImports(src)) bad.push(`${file}: import(${expr}) (computed)`);
  }
  return { checked, bad };
}

test('the import scan sees every form of import', () => {
  const src = [
    "import { a,",
    "  b } from '../plugins/x.js';",
    "import type { T } from \"../presets/index.js\";",
    "export * from '../cli/toolset.js';",
    "export { c } from './c.js';",
    "import './side.js';",
    "const m = await import('../plugins/builtins.js');",
    "const s = 'import from nothing';",
  ].join('\n');
  assert.equal(importsOf(src).sort(), ['../cli/toolset.js', '../plugins/x.js', '../presets/index.js', './c.js', './side.js', '../plugins/builtins.js'].sort());
  assert.equal(computedImports("await import(name); await jiti.import(file); await import('./x.js');"), ['name']);
  assert.is(layerOf('core/config/loadConfig.ts', '../../presets/index.js'), 'presets');
  assert.is(layerOf('core/Compiler.ts', './ir/types.js'), 'core');
  assert.is(layerOf('core/Compiler.ts', 'orch'), 'index.ts');
  assert.is(layerOf('core/Compiler.ts', 'tapable'), 'package');
});

test('core imports nothing outside core/ (no plugins/, presets/, cli/ or bin/)', () => {
  const { checked, bad } = violations('core', (l) => l === 'core' || l === 'package');
  assert.ok(checked > 100, `the scan saw only ${checked} imports in core/`);
  assert.equal(bad, [], `core/ must stand alone; move the code into core/ or have the caller (cli/toolset.ts) pass it in:\n${bad.join('\n')}`);
});

test('plugins and presets import only the core and each other, never cli/ or bin/', () => {
  // their unit tests may use the test helpers in test/
  const above = (l: string) => !['cli', 'bin', 'index.ts'].includes(l);
  const plugins = violations('plugins', above);
  const presets = violations('presets', above);
  assert.ok(plugins.checked > 50 && presets.checked > 5, 'the scan saw the plugin and preset imports');
  assert.equal([...plugins.bad, ...presets.bad], []);
});

test('bin/ only parses arguments: it imports cli/ and packages, nothing deeper', () => {
  const { checked, bad } = violations('bin', (l) => l === 'cli' || l === 'package');
  assert.ok(checked > 3, `the scan saw only ${checked} imports in bin/`);
  assert.equal(bad, [], `bin/ must only parse arguments and call cli/:\n${bad.join('\n')}`);
});

test.run();
