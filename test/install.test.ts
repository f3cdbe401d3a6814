import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { installedOrch, NPM_ENV, setupBlocks } from './installedOrch.js';
import { REPO } from './TempProject.js';

/**
 * orch installed as users install it, outside the checkout: the packed npm tarball (the
 * README's install blocks, run by installedOrch) and the Python package with pip, with no
 * package index, as a --target folder, a wheel in a venv, and an editable install.
 * The README's examples, the config and a custom plugin run in such a project in
 * docs.test.ts.
 */

const install = suite('install');
const { version } = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'))) as { version: string };

/** An environment without the checkout: no orch on PATH, no ORCH_CLI, no PYTHONPATH. */
function bareEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !['ORCH_CLI', 'ORCH_NODE', 'PYTHONPATH', 'ORCH_MODE'].includes(k)) env[k] = v;
  return { ...env, ...NPM_ENV, ...extra };
}

const run = (cmd: string, args: string[], cwd: string, env = bareEnv()) => execa(cmd, args, { cwd, env, extendEnv: false, reject: false, all: true });

install('the README has the install blocks the tests run', () => {
  const blocks = setupBlocks(`x\n<!-- docs-test: setup -->\n\`\`\`sh\nnpm i a\n\`\`\`\n\`\`\`sh\nnot this\n\`\`\`\n`);
  assert.equal(blocks, ['npm i a\n']);
});

install('the packed tarball installs: npx orch, an executable bin, no tests shipped', async () => {
  const o = await installedOrch();
  const dir = o.project('bin');
  const r = await run('npx', ['orch', '--version'], dir);
  assert.is(r.exitCode, 0, String(r.all));
  assert.ok(String(r.stdout).trim() === version, `npx orch --version printed ${r.stdout}`);
  const bin = path.join(dir, 'node_modules/orch/dist/bin/orch.js');
  assert.ok(statSync(bin).mode & 0o100, 'dist/bin/orch.js is executable');
  const listing = await run('tar', ['-tzf', o.tarball], dir);
  const files = String(listing.stdout).split('\n');
  assert.ok(files.includes('package/dist/core/index.d.ts'), 'types ship');
  assert.ok(files.includes('package/python/pyproject.toml') && files.includes('package/native/orch_runtime.h'), 'the Python package and native headers ship');
  assert.equal(files.filter((f) => /\.test\.|dist\/test\/|__pycache__/.test(f)), [], 'no tests or caches in the tarball');
});

install('a config file imports defineConfig from the installed package and type-checks', async () => {
  const o = await installedOrch();
  const dir = o.project('types');
  writeFileSync(path.join(dir, 'orch.config.ts'), "import { defineConfig, presets } from 'orch';\nexport default defineConfig({ modules: ['*.py'], preset: 'cpu', plugins: [...presets.cpu.plugins], codegen: { tile: [4, 8] } });\n");
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['orch.config.ts'] }));
  const r = await run(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], dir);
  assert.is(r.exitCode, 0, `the installed types do not check:\n${r.all}`);
  writeFileSync(path.join(dir, 'bad.ts'), "import { defineConfig } from 'orch';\nexport default defineConfig({ preset: 3 });\n");
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['bad.ts'] }));
  const bad = await run(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], dir);
  assert.is.not(bad.exitCode, 0, 'a wrong config value is a type error');
});

const DOCTOR = 'import orch; r = orch.doctor(); print("SOURCE", r["cli_source"], r["cli"])';

install('pip --target: the package finds the npm-installed orch, else ORCH_CLI, else says what it tried', async () => {
  const o = await installedOrch();
  const dir = o.project('pip-target');
  const target = path.join(dir, 'pylib');
  const pip = await run('python3', ['-m', 'pip', 'install', '--quiet', '--no-build-isolation', '--no-index', '--target', target, 'node_modules/orch/python'], dir);
  assert.is(pip.exitCode, 0, String(pip.all));
  assert.equal(readdirSync(target).sort(), ['orch', `orch-${version}.dist-info`]);
  const inProject = await run('python3', ['-c', DOCTOR], path.join(dir), bareEnv({ PYTHONPATH: target }));
  assert.is(inProject.exitCode, 0, String(inProject.all));
  assert.match(String(inProject.stdout), `SOURCE entry point ${path.join(dir, 'node_modules/.bin/orch')}`);
  assert.match(String(inProject.stdout), `(orch ${version})`);
  const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'orch-elsewhere-'));
  const cli = path.join(dir, 'node_modules/orch/dist/bin/orch.js');
  const byEnv = await run('python3', ['-c', DOCTOR], elsewhere, bareEnv({ PYTHONPATH: target, ORCH_CLI: cli }));
  assert.is(byEnv.exitCode, 0, String(byEnv.all));
  assert.match(String(byEnv.stdout), `SOURCE ORCH_CLI ${cli}`);
  const none = await run('python3', ['-m', 'orch', 'doctor'], elsewhere, bareEnv({ PYTHONPATH: target }));
  assert.is(none.exitCode, 1, String(none.all));
  assert.match(String(none.stderr), /^orch: orch's command line was not found \(no node_modules\/\.bin\/orch from the working folder up, no `orch` on PATH; ORCH_CLI is not set; no built checkout at .*; `npx --no -- orch` found none\): install it into your project/);
});

install('a venv install runs a program from Python, interpreted and compiled, outside the checkout', async () => {
  const o = await installedOrch();
  const dir = o.project('venv');
  writeFileSync(
    path.join(dir, 'prog.py'),
    `from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl.dsl.typing import Float, FloatField
from orch import program, stencil


@stencil
def scale(q: FloatField, w: Float):
    with computation(PARALLEL), interval(...):
        q = q * w


@program
def twice(q: FloatField, w: Float):
    scale(q, w)
    scale(q, w)
`,
  );
  writeFileSync(path.join(dir, 'main.py'), 'import numpy as np\nimport orch\nfrom prog import twice\nq = np.full((4, 4, 2), 1.5)\ntwice(q, 2.0)\nprint(orch.mode(), q.sum(), orch.__file__)\n');
  for (const mode of ['python', 'build-and-run', 'run']) {
    const r = await run('.venv/bin/python', ['main.py'], dir, bareEnv({ ORCH_MODE: mode }));
    assert.is(r.exitCode, 0, `${mode}:\n${r.all}`);
    assert.match(String(r.stdout), `${mode} 192.0 ${path.join(dir, '.venv')}`);
  }
});

install('pip install -e: the package is read from the checkout and uses the checkout\'s command line', async () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'orch-editable-'));
  const venv = await run('python3', ['-m', 'venv', '--system-site-packages', path.join(work, 'venv')], work);
  assert.is(venv.exitCode, 0, String(venv.all));
  const pip = await run(path.join(work, 'venv/bin/pip'), ['install', '--quiet', '--no-build-isolation', '--no-index', '-e', path.join(REPO, 'python')], work);
  assert.is(pip.exitCode, 0, String(pip.all));
  const r = await run(path.join(work, 'venv/bin/python'), ['-c', `${DOCTOR}; print("FILE", orch.__file__)`], work);
  assert.is(r.exitCode, 0, String(r.all));
  assert.match(String(r.stdout), `SOURCE checkout ${path.join(REPO, 'dist/bin/orch.js')}`);
  assert.match(String(r.stdout), `FILE ${path.join(REPO, 'python/orch/__init__.py')}`);
});

install.run();
