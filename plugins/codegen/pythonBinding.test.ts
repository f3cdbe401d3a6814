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

t.run();
