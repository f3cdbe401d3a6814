import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileSharedLibrary } from '../core/toolchain/gxx.js';
import { generateCpp } from '../plugins/codegen/generateCpp.js';
import { OrchError } from '../core/diagnostics.js';
import type { DType, Expr, Program, SourceLoc } from '../core/ir/types.js';
import { NativeLibrary, type ArgValue } from '../core/runtime/NativeLibrary.js';
import { allocate, type NDArray } from '../core/runtime/ndarray.js';

const loc: SourceLoc = { file: 'native_test.py', line: 3, col: 1 };
const sc = (name: string, dtype: DType): Expr => ({ kind: 'scalar', name, dtype });
const int = (value: number): Expr => ({ kind: 'lit', value, dtype: 'int64' });
const fld = (name: string, dtype: DType): Expr => ({ kind: 'field', name, offset: [0, 0, 0], dtype });

/**
 * if flag: a[k] += s            (a: K float64, a small, on-heap-sized typed array)
 * b[i, j] = b[i, j] * 2 + m     (b: IJ float32, m: int32)
 * over the domain (ni, nj, nk) given as int64 scalars.
 */
const program: Program = {
  name: 'native_test', entryKind: 'program', loc, compiletime: {}, stencils: {},
  params: ['a', 'b', 'flag', 's', 'm', 'ni', 'nj', 'nk'].map((name) => ({ name, kind: name === 'a' || name === 'b' ? 'field' : 'scalar' })),
  arrays: [
    { name: 'a', dtype: 'float64', axes: 'K', role: 'arg', loc },
    { name: 'b', dtype: 'float32', axes: 'IJ', role: 'arg', loc },
  ],
  scalars: [
    { name: 'flag', dtype: 'bool', role: 'arg' },
    { name: 's', dtype: 'float64', role: 'arg' },
    { name: 'm', dtype: 'int32', role: 'arg' },
    { name: 'ni', dtype: 'int64', role: 'arg' },
    { name: 'nj', dtype: 'int64', role: 'arg' },
    { name: 'nk', dtype: 'int64', role: 'arg' },
  ],
  body: [
    {
      kind: 'launch', stencil: 'bump', loc, transients: [],
      domain: [sc('ni', 'int64'), sc('nj', 'int64'), sc('nk', 'int64')],
      origins: { a: [int(0)], b: [int(0), int(0)] },
      loops: [
        {
          order: 'PARALLEL', loc, k: { lo: int(0), hi: sc('nk', 'int64') },
          body: [{ i: { lo: int(0), hi: int(1) }, j: { lo: int(0), hi: int(1) }, body: [
            { kind: 'if', loc, cond: sc('flag', 'bool'), else: [], then: [
              { kind: 'assign', loc, target: 'a', value: { kind: 'binary', op: '+', left: fld('a', 'float64'), right: sc('s', 'float64'), dtype: 'float64' } },
            ] },
          ] }],
        },
        {
          order: 'PARALLEL', loc, k: { lo: int(0), hi: int(1) },
          body: [{ i: { lo: int(0), hi: sc('ni', 'int64') }, j: { lo: int(0), hi: sc('nj', 'int64') }, body: [
            { kind: 'assign', loc, target: 'b', value: {
              kind: 'binary', op: '+', dtype: 'float32',
              left: { kind: 'binary', op: '*', left: fld('b', 'float32'), right: { kind: 'lit', value: 2, dtype: 'float32' }, dtype: 'float32' },
              right: { kind: 'cast', arg: sc('m', 'int32'), dtype: 'float32' },
            } },
          ] }],
        },
      ],
    },
  ],
};

const NATIVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../native');
const work = mkdtempSync(join(tmpdir(), 'orch-native-test-'));
let soPath = '';
let symbol = '';

async function library(): Promise<NativeLibrary> {
  if (!soPath) {
    const out = generateCpp(program, { loopOrder: 'IJK', openmp: true, lineDirectives: true });
    writeFileSync(join(work, 'native_test.cpp'), out.source);
    soPath = join(work, 'native_test.so');
    symbol = out.symbol;
    await compileSharedLibrary({
      compiler: 'g++', flags: ['-O2', '-fopenmp', '-shared', '-fPIC', '-std=c++17'],
      source: join(work, 'native_test.cpp'), output: soPath, includeDirs: [NATIVE],
    });
  }
  return NativeLibrary.open(soPath, symbol);
}

function args(over: Partial<Record<string, ArgValue>> = {}): Record<string, ArgValue> {
  const a = allocate('float64', [3]);
  const b = allocate('float32', [4, 5]);
  return { a, b, flag: true, s: 0.5, m: 3, ni: 4, nj: 5, nk: 3, ...over } as Record<string, ArgValue>;
}

function expectCode(fn: () => unknown, code: string, pattern?: RegExp): OrchError {
  try {
    fn();
  } catch (e) {
    assert.instance(e, OrchError, String(e));
    const err = e as OrchError;
    assert.is(err.diagnostic.code, code, err.message);
    if (pattern) assert.match(err.message, pattern);
    return err;
  }
  assert.unreachable(`expected ${code}`);
  throw new Error('unreachable');
}

test('signature lists params in ABI order with dtypes and axes', async () => {
  const lib = await library();
  assert.equal(lib.signature.params.slice(0, 3), [
    { name: 'a', kind: 'field', dtype: 'float64', axes: 'K', written: true },
    { name: 'b', kind: 'field', dtype: 'float32', axes: 'IJ', written: true },
    { name: 'flag', kind: 'scalar', dtype: 'bool' },
  ]);
  assert.is(lib.signature.program, 'native_test');
  lib.close();
});

test('bind once, run many times: results accumulate and calls are cheap', async () => {
  const lib = await library();
  const a: NDArray = allocate('float64', [3]);
  const b: NDArray = allocate('float32', [4, 5]);
  (b.data as Float32Array).fill(1);
  lib.bind({ a, b, flag: true, s: 0.25, m: -1, ni: 4, nj: 5, nk: 3n });
  const runs = 2000;
  const t0 = process.hrtime.bigint();
  for (let n = 0; n < runs; n++) lib.run();
  const micros = Number(process.hrtime.bigint() - t0) / 1000 / runs;
  assert.equal(Array.from(a.data as Float64Array), [500, 500, 500]);
  // b = 2b - 1 from 1 stays 1.
  assert.ok((b.data as Float32Array).every((v) => v === 1));
  console.log(`  run() with bound arguments: ${micros.toFixed(2)} us/call`);
  assert.ok(micros < 1000, `run() took ${micros} us`);
  // Rebinding a scalar changes the next run only.
  lib.bind({ a, b, flag: false, s: 100, m: 2, ni: 4, nj: 5, nk: 3 });
  lib.run();
  assert.equal(Array.from(a.data as Float64Array), [500, 500, 500]);
  assert.ok((b.data as Float32Array).every((v) => v === 4));
  lib.close();
});

test('wrong dtypes, ranks, shapes, missing and unknown arguments are clear errors', async () => {
  const lib = await library();
  expectCode(() => lib.bind(args({ b: allocate('float64', [4, 5]) })), 'E_ARG_DTYPE', /'b' must have dtype float32, got float64/);
  expectCode(() => lib.bind(args({ a: 1.5 })), 'E_ARG_DTYPE', /'a' must be a float64 K array, got a number/);
  expectCode(() => lib.bind(args({ s: allocate('float64', [1]) })), 'E_ARG_DTYPE', /'s' must be a float64 scalar/);
  expectCode(() => lib.bind(args({ ni: 2.5 })), 'E_ARG_DTYPE', /'ni' must be an integer/);
  expectCode(() => lib.bind(args({ m: 2 ** 40 })), 'E_ARG_DTYPE', /does not fit in int32/);
  expectCode(() => lib.bind(args({ flag: 'yes' as unknown as boolean })), 'E_ARG_DTYPE');
  expectCode(() => lib.bind(args({ b: allocate('float32', [20]) })), 'E_ARG_RANK', /'b' is declared over IJ/);
  const lying: NDArray = { dtype: 'float64', shape: [4], data: new Float64Array(3) };
  expectCode(() => lib.bind(args({ a: lying })), 'E_ARG_SHAPE');
  const { m: _m, ...noM } = args();
  expectCode(() => lib.bind(noM), 'E_ARG_MISSING', /missing argument 'm' \(scalar int32\)/);
  const err = expectCode(() => lib.bind({ ...args(), flg: true }), 'E_ARG_UNKNOWN', /no parameter 'flg'/);
  assert.match(err.diagnostic.hint ?? '', /did you mean 'flag'/);
  lib.close();
});

test('an out-of-bounds domain is E_OUT_OF_BOUNDS naming the array, and the library stays usable', async () => {
  const lib = await library();
  expectCode(() => lib.run(args({ nk: 4 })), 'E_OUT_OF_BOUNDS', /array 'a' is accessed at K indices \[0, 3\], outside its shape \[3\]/);
  expectCode(() => lib.run(args({ nj: 6 })), 'E_OUT_OF_BOUNDS', /array 'b' is accessed at J indices \[0, 5\], outside its shape \[4, 5\]/);
  const ok = args();
  lib.run(ok);
  assert.equal(Array.from((ok.a as NDArray).data as Float64Array), [0.5, 0.5, 0.5]);
  assert.ok(((ok.b as NDArray).data as Float32Array).every((v) => v === 3));
  lib.close();
});

test('zero-size arrays bind and run (an empty domain does nothing); a detached array is E_ARG_STALE', async () => {
  const lib = await library();
  // a zero-size array's buffer has byteLength 0 without being detached
  lib.run(args({ a: allocate('float64', [0]), b: allocate('float32', [0, 0]), ni: 0, nj: 0, nk: 0 }));
  const bound = args();
  lib.bind(bound);
  const a = bound.a as NDArray;
  structuredClone(a.data.buffer, { transfer: [a.data.buffer as ArrayBuffer] });
  expectCode(() => lib.run(), 'E_ARG_STALE', /argument 'a' was reallocated \(or detached\) after bind/);
  lib.close();
});

test('calls after close() throw instead of crashing; load errors are E_LOAD', async () => {
  const lib = await library();
  lib.run(args());
  lib.close();
  lib.close();
  assert.ok(lib.closed);
  expectCode(() => lib.run(), 'E_CLOSED');
  expectCode(() => lib.bind(args()), 'E_CLOSED');
  expectCode(() => NativeLibrary.open(join(work, 'missing.so'), symbol), 'E_LOAD');
  expectCode(() => NativeLibrary.open(soPath, 'orch_other_program'), 'E_LOAD');
  // Reopening after close works (the OpenMP runtime stays mapped across dlclose).
  const again = await library();
  again.run(args());
  again.close();
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
