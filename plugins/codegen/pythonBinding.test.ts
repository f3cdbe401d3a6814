import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ProgramSignature } from '../../core/runtime/NativeLibrary.js';
import { generatePythonBinding } from './pythonBinding.js';

const t = suite('python binding');

const signature: ProgramSignature = {
  abi: 2,
  program: 'odd names',
  params: [
    { name: 'self', kind: 'field', dtype: 'float64', axes: 'IJK', written: true },
    { name: '_orch_rebound', kind: 'field', dtype: 'int32', axes: 'IJ' },
    { name: 'SIGNATURE', kind: 'scalar', dtype: 'int64' },
    { name: '_np', kind: 'scalar', dtype: 'bool' },
  ],
  callbacks: [{ index: 0, name: 'log', function: { file: '/x/m.py', name: 'log' }, params: [{ name: 'n', dtype: 'int64' }], result: 'float32' }],
};

t('the binding is valid Python whatever the parameter names, and needs only ctypes and numpy', async () => {
  const text = generatePythonBinding(signature, 'orch_odd_names');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-binding-'));
  const file = path.join(dir, 'binding.py');
  writeFileSync(file, text);
  const r = await execa('python3', ['-c', `
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
imports = sorted({a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names})
call = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "__call__")
print(imports, [a.arg for a in call.args.args])`, file], { reject: false });
  assert.is(r.exitCode, 0, String(r.stderr));
  assert.is(String(r.stdout).trim(), "['ctypes', 'functools', 'json', 'numpy', 'operator', 'struct', 'sys'] ['self', 'self_', '_orch_rebound_', 'SIGNATURE', '_np']");
});

t('a CUDA build\'s binding is valid Python whatever the parameter names, and keeps the same call signature', async () => {
  const odd: ProgramSignature = {
    ...signature,
    target: 'cuda',
    params: [...signature.params, { name: 'ProgramError', kind: 'field', dtype: 'float64', axes: 'IJK' }, { name: 'sync', kind: 'scalar', dtype: 'float64' }],
  };
  const text = generatePythonBinding(odd, 'orch_odd_names');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-binding-'));
  const file = path.join(dir, 'binding.py');
  writeFileSync(file, text);
  const r = await execa('python3', ['-c', `
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Program")
methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
call = methods["__call__"]
args = [a.arg for a in call.args.args]
print(args, sorted(m for m in ("sync", "set_stream") if m in methods), [a.arg for a in methods["__init__"].args.args])`, file], { reject: false });
  assert.is(r.exitCode, 0, String(r.stderr));
  assert.is(String(r.stdout).trim(), "['self', 'self_', '_orch_rebound_', 'SIGNATURE', '_np', 'ProgramError', 'sync'] ['set_stream', 'sync'] ['self', 'library', 'callbacks', 'synchronize']");
  assert.not.match(text.slice(text.indexOf('def __call__'), text.indexOf('def _failed')), /ProgramError\(/, 'the call raises through _failed, not a global an argument may shadow');
});

t.run();
