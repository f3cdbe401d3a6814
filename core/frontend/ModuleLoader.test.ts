import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OrchError } from '../diagnostics.js';
import { ModuleLoader } from './ModuleLoader.js';
import { scopeName, type Value } from './values.js';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'orch-loader-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const num = (v: Value | undefined): number => {
  assert.ok(v && v.k === 'num', `expected a number, got ${JSON.stringify(v)}`);
  return (v as { value: number }).value;
};

test('relative imports work in packages and in plain folders, and import-as binds the module', () => {
  const root = tree({
    'ns/a.py': 'from . import b\nfrom .b import K\nfrom .sub import c as cc\nimport ns.b as nb\nX = b.K + K + cc.M + nb.K\n',
    'ns/b.py': 'K = 3\n',
    'ns/sub/__init__.py': '',
    'ns/sub/c.py': 'from .. import b\nM = b.K * 10\n',
  });
  const loader = new ModuleLoader([root]);
  const a = loader.load(path.join(root, 'ns/a.py'), 'ns.a');
  assert.is(num(loader.lookup(a, 'X')), 3 + 3 + 30 + 3);
  assert.equal([...loader.dependencies(path.join(root, 'ns/a.py')).keys()].map((f) => path.relative(root, f)).sort(), ['ns/a.py', 'ns/b.py', 'ns/sub/__init__.py', 'ns/sub/c.py']);
});

test('round() in module code rounds halfway cases to even, as Python does', () => {
  const root = tree({ 'r.py': 'A = round(2.5)\nB = round(3.5)\nC = round(-2.5)\nD = round(2.6)\n' });
  const loader = new ModuleLoader([root]);
  const m = loader.load(path.join(root, 'r.py'), 'r');
  assert.equal(['A', 'B', 'C', 'D'].map((n) => num(loader.lookup(m, n))), [2, 4, -2, 3]);
});

test('module code reads the environment at compile time, and every read is recorded', () => {
  const root = tree({
    'consts.py': [
      'import os',
      'VERSION = os.environ.get("PACE_CONSTANTS", "GFS").lower()',
      'if VERSION == "geos":',
      '    G = 9.80665',
      'else:',
      '    G = 9.81',
      'N = int(os.getenv("ORCH_N", "4"))',
      'HAS_DEBUG = "ORCH_DEBUG" in os.environ',
      '',
    ].join('\n'),
    'main.py': 'from consts import G, N, HAS_DEBUG\n',
  });
  const load = (env: Record<string, string>) => {
    const loader = new ModuleLoader([], env);
    const scope = loader.load(path.join(root, 'main.py'));
    const names = Object.fromEntries(['G', 'N', 'HAS_DEBUG'].map((n) => [n, loader.lookup(scope, n)]));
    return { names, env: Object.fromEntries(loader.environment(path.join(root, 'main.py'))) };
  };
  const gfs = load({});
  assert.is(num(gfs.names.G), 9.81);
  assert.is(num(gfs.names.N), 4);
  assert.equal(gfs.names.HAS_DEBUG, { k: 'bool', value: false });
  assert.equal(gfs.env, { ORCH_DEBUG: null, ORCH_N: null, PACE_CONSTANTS: null });
  const geos = load({ PACE_CONSTANTS: 'GEOS', ORCH_N: '12', ORCH_DEBUG: '' });
  assert.is(num(geos.names.G), 9.80665);
  assert.is(num(geos.names.N), 12);
  assert.equal(geos.names.HAS_DEBUG, { k: 'bool', value: true });
  assert.equal(geos.env, { ORCH_DEBUG: '', ORCH_N: '12', PACE_CONSTANTS: 'GEOS' });
});

test('an ndsl.constants-style module: Enum selector, a function reading the environment, raise in branches not taken', () => {
  const root = tree({
    'consts.py': [
      'import os',
      'from enum import Enum',
      'from broken import never_used  # a module orch cannot even parse: imports load on use',
      '',
      'class Versions(Enum):',
      '    GFDL = "GFDL"',
      '    GEOS = "GEOS"',
      '',
      'def _version(default="GFDL"):',
      '    name = os.getenv("NDSL_CONSTANTS", default)',
      '    expected = ["GFDL", "GEOS"]',
      '    if name not in expected:',
      '        raise RuntimeError(f"Constants {name} are not implemented")',
      '    return name',
      '',
      'VERSION = Versions[_version()]',
      'never_used.log(VERSION)',
      'if VERSION == Versions.GEOS:',
      '    GRAV = 9.80665',
      'elif VERSION == Versions.GFDL:',
      '    GRAV = 9.8',
      'else:',
      '    raise RuntimeError("bad version")',
      'NAME = VERSION.value',
      '',
    ].join('\n'),
    'broken.py': 'def f(:\n',
  });
  const grav = (env: Record<string, string>) => {
    const loader = new ModuleLoader([], env);
    const scope = loader.load(path.join(root, 'consts.py'));
    return [num(loader.lookup(scope, 'GRAV')), loader.lookup(scope, 'NAME'), [...loader.dependencies(path.join(root, 'consts.py')).keys()].map((f) => path.basename(f))];
  };
  assert.equal(grav({}), [9.8, { k: 'str', value: 'GFDL' }, ['consts.py']]);
  assert.equal(grav({ NDSL_CONSTANTS: 'GEOS' }), [9.80665, { k: 'str', value: 'GEOS' }, ['consts.py']]);
  try {
    grav({ NDSL_CONSTANTS: 'UFS' });
    assert.unreachable('the selector raises for an unknown version');
  } catch (e) {
    assert.instance(e, OrchError);
    assert.is((e as OrchError).diagnostic.code, 'E_MODULE_RAISE');
    assert.is((e as OrchError).diagnostic.loc?.line, 13);
  }
});

test('try/except in module code: a KeyError handler gives a default or re-raises', () => {
  const root = tree({
    'consts.py': [
      'import os',
      'from enum import Enum',
      'class V(Enum):',
      '    A = "A"',
      '    B = "B"',
      'try:',
      '    VERSION = V[os.environ.get("PACE_CONSTANTS", "A")]',
      'except KeyError as e:',
      '    raise RuntimeError("unknown constants") from e',
      'try:',
      '    N = int(os.environ["ORCH_N"])',
      'except (ValueError, KeyError):',
      '    N = 4',
      'else:',
      '    N = N + 1',
      'finally:',
      '    DONE = True',
      '',
    ].join('\n'),
  });
  const load = (env: Record<string, string>) => {
    const loader = new ModuleLoader([], env);
    const scope = loader.load(path.join(root, 'consts.py'));
    return [loader.lookup(scope, 'VERSION'), num(loader.lookup(scope, 'N')), loader.lookup(scope, 'DONE')];
  };
  assert.equal(load({}), [{ k: 'enumMember', enum: 'V', name: 'A', value: { k: 'str', value: 'A' } }, 4, { k: 'bool', value: true }]);
  assert.equal(load({ PACE_CONSTANTS: 'B', ORCH_N: '7' })[1], 8);
  assert.equal(load({ ORCH_N: 'seven' })[1], 4, 'int("seven") raises ValueError, caught');
  try {
    load({ PACE_CONSTANTS: 'C' });
    assert.unreachable('V["C"] raises KeyError, the handler re-raises');
  } catch (e) {
    assert.instance(e, OrchError);
    assert.is((e as OrchError).diagnostic.code, 'E_MODULE_RAISE');
    assert.is((e as OrchError).diagnostic.loc?.line, 9);
  }
});

test('os.environ["NAME"] of an unset variable is a located error, like Python\'s KeyError', () => {
  const root = tree({ 'consts.py': 'import os\nMODE = os.environ["ORCH_REQUIRED_MODE"]\n' });
  try {
    new ModuleLoader([], {}).load(path.join(root, 'consts.py'));
    assert.unreachable('expected E_ENV_UNSET');
  } catch (e) {
    assert.instance(e, OrchError);
    const d = (e as OrchError).diagnostic;
    assert.is(d.code, 'E_ENV_UNSET');
    assert.is(d.loc?.line, 2);
    assert.match(d.hint ?? '', 'os.environ.get("ORCH_REQUIRED_MODE", default)');
  }
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof OrchError ? e.diagnostic.code : String(e);
  }
  return undefined;
}

test('a broken module gives every importer its own error, not an import cycle', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-loader-'));
  writeFileSync(path.join(dir, 'consts.py'), 'GAIN = 4.0 +\n');
  writeFileSync(path.join(dir, 'a.py'), 'from consts import GAIN\n');
  writeFileSync(path.join(dir, 'b.py'), 'import consts\n');
  const l = new ModuleLoader();
  // imports resolve on first use: using the imported names is what reaches the broken module
  assert.is(codeOf(() => scopeName(l.load(path.join(dir, 'a.py')), 'GAIN')), 'E_SYNTAX');
  assert.is(codeOf(() => scopeName(l.load(path.join(dir, 'b.py')), 'consts')), 'E_SYNTAX');
  assert.ok(l.filesRead.has(path.join(dir, 'consts.py')), 'the broken module is recorded as read');
});

test.run();
