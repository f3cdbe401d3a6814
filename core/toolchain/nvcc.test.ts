import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NATIVE_DIR } from '../cache/hashing.js';
import { OrchError, OrchErrors, type Diagnostic } from '../diagnostics.js';
import { archFlags, compileCudaLibrary, nvccIdentity, parseNvccDiagnostics } from './nvcc.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'orch-nvcc-test-'));

async function failure(fn: () => Promise<unknown>): Promise<Diagnostic[]> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof OrchError) return [e.diagnostic];
    if (e instanceof OrchErrors) return e.diagnostics;
    throw e;
  }
  assert.unreachable('expected a failure');
  return [];
}

test('front-end, tool and host-compiler lines all become diagnostics', () => {
  const out = parseNvccDiagnostics(
    [
      'stencils/m.py(12): error: identifier "foo" is undefined',
      '  a[0] = foo;',
      'orch_x.cu(40): warning #177-D: variable "unused" was declared but never referenced',
      'orch_x.cu(41): catastrophic error: cannot open source file "nope.h"',
      "ptxas error   : Entry function 'k' uses too much shared data",
      'orch_x.cpp:7:3: error: expected ‘;’ before ‘}’ token',
      '1 error detected in the compilation of "orch_x.cu".',
    ].join('\n'),
  );
  assert.equal(
    out.map((d) => [d.severity, d.loc?.file, d.loc?.line, d.loc?.col]),
    [
      ['error', 'stencils/m.py', 12, 1],
      ['warning', 'orch_x.cu', 40, 1],
      ['error', 'orch_x.cu', 41, 1],
      ['error', undefined, undefined, undefined],
      ['error', 'orch_x.cpp', 7, 3],
    ],
  );
  assert.match(out[0].message, /^CUDA compiler: identifier "foo" is undefined/);
  assert.ok(out[0].hint, 'errors in user files say what happened');
  assert.is(out[3].message, "ptxas: Entry function 'k' uses too much shared data");
});

test('one architecture gives -arch, several a fat binary with PTX of the newest', () => {
  assert.equal(archFlags('sm_90'), ['-arch=sm_90']);
  assert.equal(archFlags('sm_90,sm_80'), [
    '-gencode=arch=compute_90,code=sm_90',
    '-gencode=arch=compute_80,code=sm_80',
    '-gencode=arch=compute_90,code=compute_90',
  ]);
});

test('an error in a kernel is reported at the user line its #line names', async () => {
  const cu = path.join(work, 'bad.cu');
  writeFileSync(cu, ['#include "orch_runtime.h"', '#line 7 "stencils/smooth.py"', '__global__ void k(double* a) { a[0] = not_declared; }', ''].join('\n'));
  const diags = await failure(() => compileCudaLibrary({ nvcc: 'nvcc', flags: ['-std=c++17'], arch: 'sm_90', sources: [cu], output: path.join(work, 'libbad.so'), cwd: work, includeDirs: [NATIVE_DIR] }));
  assert.is(diags.length, 1);
  assert.is(diags[0].code, 'E_CXX');
  assert.equal(diags[0].loc, { file: 'stencils/smooth.py', line: 7, col: 1 });
  assert.match(diags[0].message, /not_declared/);
  assert.match(diags[0].detail ?? '', /not_declared/, 'the whole compiler output is kept');
});

test('a library of a .cpp and a .cu links, exporting only what is marked visible', async () => {
  const cpp = path.join(work, 'host.cpp');
  const cu = path.join(work, 'kern.cu');
  writeFileSync(cpp, ['int launch_it(int);', 'extern "C" __attribute__((visibility("default"))) int entry(int n) { return launch_it(n); }', ''].join('\n'));
  writeFileSync(cu, ['__global__ void k(int* a) { a[0] = 1; }', 'int launch_it(int n) { k<<<1, 1>>>(nullptr); return n + (int)cudaGetLastError() * 0; }', ''].join('\n'));
  const out = path.join(work, 'libok.so');
  const r = await compileCudaLibrary({ nvcc: 'nvcc', flags: ['-O2'], arch: 'sm_80,sm_90', sources: [cpp, cu], output: out, cwd: work, includeDirs: [] });
  assert.ok(r.command.includes('--cudart=static') && r.command.includes('-Xcompiler=-fvisibility=hidden'));
  const { execa } = await import('execa');
  const exported = (await execa('nm', ['-D', '--defined-only', out])).stdout.trim().split('\n').map((l) => l.split(/\s+/).pop());
  assert.equal(exported, ['entry']);
});

test('a missing nvcc is a toolchain error with an install hint', async () => {
  const diags = await failure(() => compileCudaLibrary({ nvcc: 'nvcc-that-is-not-there', flags: [], arch: 'sm_90', sources: ['x.cu'], output: path.join(work, 'x.so'), cwd: work, includeDirs: [] }));
  assert.is(diags[0].code, 'E_TOOLCHAIN');
  assert.match(diags[0].hint ?? '', /CUDA toolkit/);
  assert.is((await failure(() => nvccIdentity('nvcc-that-is-not-there', [])))[0].code, 'E_TOOLCHAIN');
});

test('the toolchain identity names nvcc release and the host compiler', async () => {
  const id = await nvccIdentity('nvcc', []);
  assert.match(id, /release \d+\.\d+/);
  assert.match(id, /host g\+\+/);
});

test.run();
