import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OrchError, OrchErrors, type Diagnostic } from '../../core/diagnostics.js';
import type { ArrayDecl, Axes, DType, Expr, HLoop, Offset, PStmt, Program, ScalarVar, SourceLoc, Stmt, VLoop } from '../../core/ir/types.js';
import { NativeLibrary } from '../../core/runtime/NativeLibrary.js';
import { allocate, type NDArray } from '../../core/runtime/ndarray.js';
import { compileSharedLibrary } from '../../core/toolchain/gxx.js';
import { cString } from './cText.js';
import { generateCpp, type CppOptions } from './generateCpp.js';

// ---- IR builders: hand-written expanded programs ------------------------------------

const FILE = 'stencils/test_prog.py';
const at = (line: number): SourceLoc => ({ file: FILE, line, col: 5 });
const int = (value: number): Expr => ({ kind: 'lit', value, dtype: 'int64' });
const f64 = (value: number): Expr => ({ kind: 'lit', value, dtype: 'float64' });
const sc = (name: string, dtype: DType = 'int64'): Expr => ({ kind: 'scalar', name, dtype });
const fld = (name: string, offset: Offset = [0, 0, 0], dtype: DType = 'float64'): Expr => ({ kind: 'field', name, offset, dtype });
const bin = (op: Extract<Expr, { kind: 'binary' }>['op'], left: Expr, right: Expr, dtype: DType = left.dtype): Expr => ({
  kind: 'binary', op, left, right, dtype,
});
const assign = (target: string, value: Expr, line = 10): Stmt => ({ kind: 'assign', target, value, loc: at(line) });
const hloop = (body: Stmt[], i: [Expr, Expr] = [int(0), sc('nx')], j: [Expr, Expr] = [int(0), sc('ny')]): HLoop => ({
  i: { lo: i[0], hi: i[1] }, j: { lo: j[0], hi: j[1] }, body,
});
const vloop = (order: VLoop['order'], k: [Expr, Expr], body: HLoop[]): VLoop => ({ order, k: { lo: k[0], hi: k[1] }, body, loc: at(5) });
const arg = (name: string, axes: Axes, dtype: DType = 'float64'): ArrayDecl => ({ name, dtype, axes, role: 'arg', loc: at(1) });
const sarg = (name: string, dtype: DType = 'int64'): ScalarVar => ({ name, dtype, role: 'arg' });

function launch(stencil: string, origins: Record<string, Expr[]>, loops: VLoop[], transients: string[] = []): PStmt {
  return { kind: 'launch', stencil, domain: [sc('nx'), sc('ny'), sc('nz')], origins, transients, loops, loc: at(20) };
}

function program(name: string, arrays: ArrayDecl[], scalars: ScalarVar[], body: PStmt[], params?: string[]): Program {
  const order = params ?? [...arrays.filter((a) => a.role === 'arg').map((a) => a.name), ...scalars.filter((s) => s.role === 'arg').map((s) => s.name)];
  return {
    name, entryKind: 'program', loc: at(1),
    params: order.map((n) => ({ name: n, kind: arrays.some((a) => a.name === n) ? 'field' : 'scalar' })),
    arrays, scalars, compiletime: {}, stencils: {}, body,
  };
}

// ---- build helpers ------------------------------------------------------------------

const NATIVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../../native');
const FLAGS = ['-O2', '-fopenmp', '-shared', '-fPIC', '-std=c++17'];
const work = mkdtempSync(join(tmpdir(), 'orch-cpp-test-'));
const DEFAULTS: CppOptions = { loopOrder: 'IJK', openmp: true, lineDirectives: true };
let serial = 0;

async function build(p: Program, opts: Partial<CppOptions> = {}, patch?: (src: string) => string): Promise<NativeLibrary> {
  const base = `lib${serial++}`;
  const out = generateCpp(p, { ...DEFAULTS, sourceFileName: join(work, `${base}.cpp`), ...opts });
  const source = join(work, `${base}.cpp`);
  writeFileSync(source, patch ? patch(out.source) : out.source);
  writeFileSync(join(work, `${base}.h`), out.header);
  await compileSharedLibrary({ compiler: 'g++', flags: FLAGS, source, output: join(work, `${base}.so`), includeDirs: [NATIVE] });
  return NativeLibrary.open(join(work, `${base}.so`), out.symbol);
}

function filled(dtype: DType, shape: number[], f: (n: number) => number): NDArray {
  const a = allocate(dtype, shape);
  for (let n = 0; n < a.data.length; n++) {
    if (a.data instanceof BigInt64Array) a.data[n] = BigInt(f(n));
    else a.data[n] = f(n);
  }
  return a;
}

const idx3 = (s: number[], i: number, j: number, k: number): number => (i * s[1] + j) * s[2] + k;

function expectOrch(fn: () => unknown, code: string, pattern?: RegExp): OrchError {
  try {
    fn();
  } catch (e) {
    assert.instance(e, OrchError);
    const err = e as OrchError;
    assert.is(err.diagnostic.code, code, err.message);
    if (pattern) assert.match(err.message, pattern);
    return err;
  }
  assert.unreachable(`expected ${code}`);
  throw new Error('unreachable');
}

// ---- programs -----------------------------------------------------------------------

/** PARALLEL: 5-point Laplacian with a halo of 1 in I and J, plus a K-only profile. */
function laplacian(): Program {
  const lap = bin('-',
    bin('+', bin('+', bin('+', fld('inp', [-1, 0, 0]), fld('inp', [1, 0, 0])), fld('inp', [0, -1, 0])), fld('inp', [0, 1, 0])),
    bin('*', f64(4), fld('inp')));
  const body = [assign('out', bin('+', bin('*', sc('alpha', 'float64'), lap), fld('w')), 42)];
  return program('laplacian', [arg('inp', 'IJK'), arg('w', 'K'), arg('out', 'IJK')], [sarg('alpha', 'float64'), sarg('nx'), sarg('ny'), sarg('nz')], [
    launch('lap', { inp: [int(1), int(1), int(0)], w: [int(0)], out: [int(1), int(1), int(0)] }, [
      vloop('PARALLEL', [int(0), sc('nz')], [hloop(body)]),
    ]),
  ]);
}

function laplacianExpected(inp: NDArray, w: NDArray, alpha: number, nx: number, ny: number, nz: number): Float64Array {
  const s = inp.shape;
  const a = inp.data as Float64Array;
  const out = new Float64Array(a.length);
  for (let i = 1; i <= nx; i++)
    for (let j = 1; j <= ny; j++)
      for (let k = 0; k < nz; k++) {
        const lap = a[idx3(s, i - 1, j, k)] + a[idx3(s, i + 1, j, k)] + a[idx3(s, i, j - 1, k)] + a[idx3(s, i, j + 1, k)] - 4 * a[idx3(s, i, j, k)];
        out[idx3(s, i, j, k)] = alpha * lap + (w.data as Float64Array)[k];
      }
  return out;
}

for (const loopOrder of ['IJK', 'KJI', 'KIJ', 'JIK']) {
  test(`PARALLEL launch with IJK and K arrays and offset reads (loop order ${loopOrder})`, async () => {
    const [nx, ny, nz] = [40, 37, 30];
    const lib = await build(laplacian(), { loopOrder });
    const inp = filled('float64', [nx + 2, ny + 2, nz], (n) => Math.sin(n * 0.37) * 10 + n * 1e-3);
    const w = filled('float64', [nz], (n) => 0.1 * n);
    const out = allocate('float64', [nx + 2, ny + 2, nz]);
    lib.run({ inp, w, out, alpha: 0.3, nx, ny, nz });
    assert.equal(Array.from(out.data as Float64Array), Array.from(laplacianExpected(inp, w, 0.3, nx, ny, nz)));
    lib.close();
  });
}

// A threaded region (a lambda capturing by value) reads local copies of its scalars: read
// as closure members, g++ reloaded them at every point (a store through an array pointer may
// change them, as far as it can tell), and redid the arithmetic on them.
test('a threaded region reads the scalars it uses from local copies made on entry', () => {
  const { source } = generateCpp(laplacian(), { ...DEFAULTS, sourceFileName: join(work, 'scalars.cpp') });
  const region = source.slice(source.indexOf('const auto region = [='), source.indexOf('};', source.indexOf('const auto region = [=')));
  assert.match(region, /const auto region = \[=\]\(\) \{\n\s*const double l_scalar_alpha = v_alpha;\n/);
  assert.not.match(region.slice(region.indexOf('\n', region.indexOf('l_scalar_alpha ='))), /v_alpha/);
  assert.match(region, /l_scalar_alpha \*/);
  // nx is read outside the region (its bounds), so it has no copy
  assert.not.match(region, /l_scalar_nx/);
});

test('out-of-bounds domain returns a clear error instead of crashing', async () => {
  const lib = await build(laplacian());
  const [nx, ny, nz] = [8, 8, 4];
  const args = { inp: allocate('float64', [nx + 2, ny + 2, nz]), w: allocate('float64', [nz]), out: allocate('float64', [nx + 2, ny + 2, nz]), alpha: 1, nx: nx + 1, ny, nz };
  const err = expectOrch(() => lib.run(args), 'E_OUT_OF_BOUNDS', /array 'inp' is accessed at I indices \[0, 10\], outside its shape \[10, 10, 4\]/);
  assert.match(err.message, /stencil 'lap': array 'inp'/);
  assert.is(err.diagnostic.loc?.file, 'stencils/test_prog.py');
  assert.is(err.diagnostic.loc?.line, 20);
  // Too deep in K for the K-only array.
  expectOrch(() => lib.run({ ...args, nx, nz: nz + 1 }), 'E_OUT_OF_BOUNDS', /array '(out|inp|w)' is accessed at K indices \[0, 4\], outside its shape \[(10, 10, )?4\]/);
  // An empty domain touches nothing, so it is not an error.
  lib.run({ ...args, nx: 0 });
  lib.close();
});

/** Integer and float arithmetic with Python semantics (floor division, modulo, power). */
test('Python arithmetic semantics: //, %, ** on ints and floats, casts, min/max', async () => {
  const n = fld('n', [0, 0, 0], 'int64');
  const x = fld('x');
  const ints = bin('+', bin('+', bin('//', n, int(3)), bin('%', n, int(-4))), bin('**', n, int(2)));
  const floats = bin('+', bin('%', x, f64(1.5)), bin('//', x, f64(0.7)));
  const castBack: Expr = { kind: 'cast', arg: { kind: 'call', fn: 'max', args: [x, f64(-2.5)], dtype: 'float64' }, dtype: 'int32' };
  const body: Stmt[] = [
    assign('iout', ints),
    assign('fout', floats),
    assign('cout', castBack),
  ];
  const p = program('arith', [arg('n', 'IJK', 'int64'), arg('x', 'IJK'), arg('iout', 'IJK', 'int64'), arg('fout', 'IJK'), arg('cout', 'IJK', 'int32')], [sarg('nx'), sarg('ny'), sarg('nz')], [
    launch('arith', { n: [int(0), int(0), int(0)], x: [int(0), int(0), int(0)], iout: [int(0), int(0), int(0)], fout: [int(0), int(0), int(0)], cout: [int(0), int(0), int(0)] }, [
      vloop('PARALLEL', [int(0), sc('nz')], [hloop(body)]),
    ]),
  ]);
  const lib = await build(p, { openmp: false });
  const shape = [5, 4, 3];
  const nArr = filled('int64', shape, (q) => q - 30);
  const xArr = filled('float64', shape, (q) => (q - 30) * 0.55);
  const iout = allocate('int64', shape);
  const fout = allocate('float64', shape);
  const cout = allocate('int32', shape);
  lib.run({ n: nArr, x: xArr, iout, fout, cout, nx: 5, ny: 4, nz: 3 });
  const pyFloorDiv = (a: number, b: number): number => Math.floor(a / b);
  const pyMod = (a: number, b: number): number => { const r = a % b; return r !== 0 && (r < 0) !== (b < 0) ? r + b : r; };
  for (let q = 0; q < 60; q++) {
    const nv = q - 30;
    const xv = (q - 30) * 0.55;
    assert.is(iout.data[q], BigInt(pyFloorDiv(nv, 3) + pyMod(nv, -4) + nv * nv), `int at ${q}`);
    assert.is(fout.data[q], pyMod(xv, 1.5) + Math.floor(xv / 0.7), `float at ${q}`);
    assert.is(cout.data[q], Math.trunc(Math.max(xv, -2.5)), `cast at ${q}`);
  }
  lib.close();
});

/** FORWARD and BACKWARD: running sums along K with k-offset reads. */
test('FORWARD and BACKWARD launches with k-offset reads', async () => {
  const origin = [int(0), int(0), int(0)];
  const p = program('cumsum', [arg('inp', 'IJK'), arg('fwd', 'IJK'), arg('bwd', 'IJK')], [sarg('nx'), sarg('ny'), sarg('nz')], [
    launch('cumsum', { inp: origin, fwd: origin, bwd: origin }, [
      vloop('FORWARD', [int(0), int(1)], [hloop([assign('fwd', fld('inp'))])]),
      vloop('FORWARD', [int(1), sc('nz')], [hloop([assign('fwd', bin('+', fld('fwd', [0, 0, -1]), fld('inp')))])]),
      vloop('BACKWARD', [bin('-', sc('nz'), int(1)), sc('nz')], [hloop([assign('bwd', fld('inp'))])]),
      vloop('BACKWARD', [int(0), bin('-', sc('nz'), int(1))], [
        hloop([assign('bwd', bin('*', fld('bwd', [0, 0, 1]), f64(0.5)))]),
        hloop([assign('bwd', bin('+', fld('bwd'), fld('inp')))]),
      ]),
    ]),
  ]);
  for (const loopOrder of ['IJK', 'JIK']) {
    const lib = await build(p, { loopOrder });
    const shape = [200, 190, 6]; // 38000 points per level: large enough to go parallel
    const inp = filled('float64', shape, (n) => ((n * 7919) % 1000) / 7);
    const fwd = allocate('float64', shape);
    const bwd = allocate('float64', shape);
    lib.run({ inp, fwd, bwd, nx: shape[0], ny: shape[1], nz: shape[2] });
    const a = inp.data as Float64Array;
    for (let col = 0; col < shape[0] * shape[1]; col += 97) {
      let f = 0;
      const b = new Array<number>(shape[2]);
      for (let k = 0; k < shape[2]; k++) {
        f = k === 0 ? a[col * shape[2]] : f + a[col * shape[2] + k];
        assert.is(fwd.data[col * shape[2] + k], f);
      }
      for (let k = shape[2] - 1; k >= 0; k--) {
        b[k] = k === shape[2] - 1 ? a[col * shape[2] + k] : b[k + 1] * 0.5 + a[col * shape[2] + k];
        assert.is(bwd.data[col * shape[2] + k], b[k]);
      }
    }
    lib.close();
  }
});

/** A `for` loop around a launch that allocates a zero-filled transient, plus locals. */
test('for loop calling a launch with a transient and a temporary', async () => {
  const shapeOf = (axis: number): Expr => ({ kind: 'shape', name: 'a', axis, dtype: 'int64' });
  const origin = [int(0), int(0), int(0)];
  const tmp: ArrayDecl = { name: 'tmp', dtype: 'float64', axes: 'IJK', role: 'transient', shape: [shapeOf(0), shapeOf(1), shapeOf(2)], loc: at(3) };
  const acc: ArrayDecl = { name: 'acc', dtype: 'float64', axes: 'IJ', role: 'temporary', shape: [shapeOf(0), shapeOf(1)], loc: at(4) };
  const it: Expr = { kind: 'cast', arg: sc('it'), dtype: 'float64' };
  const p = program('looped', [arg('a', 'IJK'), tmp, acc, arg('count', 'IJ', 'int32')], [sarg('n'), sarg('nx'), sarg('ny'), sarg('nz'), { name: 'it', dtype: 'int64', role: 'local' }, { name: 'calls', dtype: 'int32', role: 'local' }], [
    { kind: 'for', var: 'it', start: int(0), stop: sc('n'), step: int(1), loc: at(30), body: [
      launch('step', { a: origin, tmp: origin, acc: [int(0), int(0)], count: [int(0), int(0)] }, [
        vloop('PARALLEL', [int(0), sc('nz')], [
          // tmp starts zero-filled every launch, so tmp += ... sees only this launch's writes.
          hloop([assign('tmp', bin('+', fld('tmp'), bin('+', bin('*', fld('a'), f64(2)), it)))]),
          hloop([assign('a', bin('+', fld('tmp'), f64(1)))]),
        ]),
        vloop('PARALLEL', [int(0), int(1)], [hloop([assign('acc', bin('+', fld('acc'), fld('a')))])]),
      ], ['tmp']),
      { kind: 'set', name: 'calls', value: { kind: 'binary', op: '+', left: sc('calls', 'int32'), right: { kind: 'lit', value: 1, dtype: 'int32' }, dtype: 'int32' }, loc: at(31) },
    ] },
    launch('count', { count: [int(0), int(0)] }, [vloop('PARALLEL', [int(0), int(1)], [hloop([assign('count', sc('calls', 'int32'))])])]),
  ]);
  const lib = await build(p);
  const shape = [6, 5, 4];
  const a = filled('float64', shape, (q) => q * 0.25);
  const count = allocate('int32', [6, 5]);
  const expected = Float64Array.from(a.data as Float64Array);
  lib.run({ a, count, n: 3, nx: 6, ny: 5, nz: 4 });
  for (let step = 0; step < 3; step++) for (let q = 0; q < expected.length; q++) expected[q] = expected[q] * 2 + step + 1;
  assert.equal(Array.from(a.data as Float64Array), Array.from(expected));
  assert.ok((count.data as Int32Array).every((c) => c === 3));
  // The temporary lives for one run: a second run starts from zero again and still works.
  lib.run({ a, count, n: 0, nx: 6, ny: 5, nz: 4 });
  assert.ok((count.data as Int32Array).every((c) => c === 0));
  expectOrch(() => lib.run({ a, count, n: 1, nx: 7, ny: 5, nz: 4 }), 'E_OUT_OF_BOUNDS', /array '(a|tmp)' is accessed at I indices \[0, 6\]/);
  lib.close();
});

/** Horizontal regions, an IJ float array and an IJ bool array. */
test('regions select the right points, and narrow the bounds check', async () => {
  const start = (offset: number) => ({ level: 'start' as const, offset });
  const end = (offset: number) => ({ level: 'end' as const, offset });
  const origin2 = [int(0), int(0)];
  const body: Stmt[] = [
    assign('out', f64(1)),
    assign('edge', { kind: 'lit', value: false, dtype: 'bool' }),
    { kind: 'region', loc: at(50), regions: [
      { i: { start: start(0), end: start(1) }, j: { start: null, end: null } },
      { i: { start: null, end: null }, j: { start: end(-1), end: null } },
    ], body: [assign('out', f64(2)), assign('edge', { kind: 'lit', value: true, dtype: 'bool' })] },
    // Reads inp[i-1] only where i >= 1: with origin 0 that is in bounds, and the check must know it.
    { kind: 'region', loc: at(51), regions: [{ i: { start: start(1), end: null }, j: { start: null, end: null } }], body: [
      assign('out', bin('+', fld('out'), fld('inp', [-1, 0, 0]))),
    ] },
  ];
  const p = program('regions', [arg('inp', 'IJ'), arg('out', 'IJ'), arg('edge', 'IJ', 'bool')], [sarg('nx'), sarg('ny'), sarg('nz')], [
    launch('regions', { inp: origin2, out: origin2, edge: origin2 }, [vloop('PARALLEL', [int(0), int(1)], [hloop(body)])]),
  ]);
  const lib = await build(p);
  const [nx, ny] = [7, 6];
  const inp = filled('float64', [nx, ny], (q) => q);
  const out = allocate('float64', [nx, ny]);
  const edge = filled('bool', [nx, ny], () => 1);
  lib.run({ inp, out, edge, nx, ny, nz: 1 });
  for (let i = 0; i < nx; i++)
    for (let j = 0; j < ny; j++) {
      const inRegion = i === 0 || j === ny - 1;
      const v = (inRegion ? 2 : 1) + (i >= 1 ? (i - 1) * ny + j : 0);
      assert.is(out.data[i * ny + j], v, `out at ${i},${j}`);
      assert.is(edge.data[i * ny + j], inRegion ? 1 : 0, `edge at ${i},${j}`);
    }
  lib.close();
});

test('#line maps a C++ compile error to the .py statement', async () => {
  let caught: unknown;
  try {
    // Break the statement generated for line 42 of the .py (the Laplacian's assignment).
    await build(laplacian(), {}, (src) => {
      const lines = src.split('\n');
      const at42 = lines.findIndex((l) => l.startsWith(`#line 42 ${cString(FILE)}`));
      assert.ok(at42 >= 0, 'the assignment has a #line directive');
      lines[at42 + 1] = lines[at42 + 1].replace(' = ', ' = orch_no_such_name + ');
      return lines.join('\n');
    });
  } catch (e) {
    caught = e;
  }
  const diags: Diagnostic[] = caught instanceof OrchErrors ? caught.diagnostics : caught instanceof OrchError ? [caught.diagnostic] : [];
  assert.ok(diags.length > 0, `expected a compile error, got ${String(caught)}`);
  const d = diags[0];
  assert.is(d.code, 'E_CXX');
  assert.equal(d.loc && { file: d.loc.file, line: d.loc.line }, { file: FILE, line: 42 });
  assert.match(d.message, /orch_no_such_name/);
  assert.match(d.detail ?? '', /orch_no_such_name/);
});

test('user names cannot break out of identifiers, strings or comments', async () => {
  const evil = 'x"; abort(); /* */ \\ ??= \n';
  const p = laplacian();
  p.name = `bad name ${evil}`;
  const out = generateCpp(p, DEFAULTS);
  assert.match(out.symbol, /^orch_[A-Za-z0-9_]+$/);
  // The header must stay valid even as C with trigraphs (where ??/ would splice lines).
  const header = join(work, 'evil.h');
  writeFileSync(header, out.header);
  await execa('gcc', ['-fsyntax-only', '-x', 'c', '-trigraphs', '-Werror', `-I${NATIVE}`, header]);
  assert.is(cString('a"b\\c?\né'), '"a\\042b\\134c\\077\\012\\303\\251"');
  const lib = await build(p);
  assert.is(lib.signature.program, p.name);
  lib.close();
});

test('float literals keep full precision and special values', async () => {
  const values = [0.1, 1e300, -2.5e-320, 123456789.123456789, -0, 3];
  const body = values.map((v, n) => assign('out', v === 3 ? bin('/', f64(Infinity), f64(Infinity)) : f64(v), 60 + n));
  const p = program('literals', [arg('out', 'K')], [sarg('nx'), sarg('ny'), sarg('nz')], []);
  p.body = values.map((_, n) => launch('lit', { out: [int(n)] }, [vloop('PARALLEL', [int(0), int(1)], [hloop([body[n]], [int(0), int(1)], [int(0), int(1)])])]));
  const lib = await build(p);
  const out = allocate('float64', [values.length]);
  lib.run({ out, nx: 1, ny: 1, nz: 1 });
  const got = Array.from(out.data as Float64Array);
  for (let n = 0; n < values.length - 1; n++) assert.ok(Object.is(got[n], values[n]), `${got[n]} vs ${values[n]}`);
  assert.ok(Number.isNaN(got[values.length - 1]));
  lib.close();
});

test('program while/if, point if/else, ternary and math builtins', async () => {
  const x = fld('x');
  const call = (fn: Extract<Expr, { kind: 'call' }>['fn'], ...args: Expr[]): Expr => ({ kind: 'call', fn, args, dtype: 'float64' });
  const pointBody: Stmt[] = [
    { kind: 'if', loc: at(70), cond: bin('>', x, f64(0), 'bool'),
      then: [assign('y', call('sqrt', x))],
      else: [assign('y', { kind: 'ternary', cond: { kind: 'call', fn: 'isnan', args: [x], dtype: 'bool' }, then: f64(-1), else: call('abs', call('floor', x)), dtype: 'float64' })] },
    assign('z', bin('+', call('exp', call('min', x, f64(3))), call('arctan2', x, f64(2)))),
  ];
  const origin = [int(0), int(0), int(0)];
  // while (count < 3) { if (count % 2 == 0) launch; count = count + 1 }  -> the launch runs twice
  const p = program('control', [arg('x', 'IJK'), arg('y', 'IJK'), arg('z', 'IJK')], [sarg('nx'), sarg('ny'), sarg('nz'), { name: 'count', dtype: 'int64', role: 'local' }], [
    { kind: 'while', loc: at(80), cond: bin('<', sc('count'), int(3), 'bool'), body: [
      { kind: 'if', loc: at(81), cond: bin('==', bin('%', sc('count'), int(2)), int(0), 'bool'), else: [], then: [
        launch('ctl', { x: origin, y: origin, z: origin }, [vloop('PARALLEL', [int(0), sc('nz')], [hloop(pointBody)])]),
        { kind: 'set', name: 'count', value: bin('+', sc('count'), int(0)), loc: at(82) },
      ] },
      { kind: 'set', name: 'count', value: bin('+', sc('count'), int(1)), loc: at(83) },
    ] },
  ]);
  const lib = await build(p);
  const shape = [4, 3, 5];
  const x0 = filled('float64', shape, (n) => (n === 7 ? NaN : (n - 25) * 0.3));
  const y = allocate('float64', shape);
  const z = allocate('float64', shape);
  lib.run({ x: x0, y, z, nx: 4, ny: 3, nz: 5 });
  for (let n = 0; n < 60; n++) {
    const xv = x0.data[n] as number;
    const yv = xv > 0 ? Math.sqrt(xv) : Number.isNaN(xv) ? -1 : Math.abs(Math.floor(xv));
    assert.is(y.data[n], yv, `y at ${n}`);
    const [e, t] = [Math.exp(Math.min(xv, 3)), Math.atan2(xv, 2)];
    const zv = e + t;
    // libm and V8 may differ in the last ulp of exp/atan2; NaN stays NaN (min keeps the first NaN).
    if (Number.isNaN(xv)) assert.ok(Number.isNaN(z.data[n] as number));
    else assert.ok(Math.abs((z.data[n] as number) - zv) <= 5e-16 * (Math.abs(e) + Math.abs(t)), `z at ${n}`);
  }
  lib.close();
});

test('compiler warnings come back as W_CXX diagnostics at the .py line', async () => {
  const p = laplacian();
  const out = generateCpp(p, DEFAULTS);
  const source = join(work, 'warned.cpp');
  writeFileSync(source, out.source.replace(`#line 42 ${cString(FILE)}\n`, `#line 42 ${cString(FILE)}\n#warning orch_test_warning\n`));
  const res = await compileSharedLibrary({ compiler: 'g++', flags: FLAGS, source, output: join(work, 'warned.so'), includeDirs: [NATIVE] });
  const w = res.warnings.find((d) => /orch_test_warning/.test(d.message));
  assert.ok(w, res.stderr);
  assert.is(w.code, 'W_CXX');
  assert.equal(w.loc && [w.loc.file, w.loc.line], [FILE, 42]);
  assert.is(res.command[0], 'g++');
});

test('a missing compiler is E_TOOLCHAIN with a hint', async () => {
  try {
    await compileSharedLibrary({ compiler: 'orch-no-such-compiler', flags: FLAGS, source: 'x.cpp', output: join(work, 'x.so'), includeDirs: [] });
    assert.unreachable('should fail');
  } catch (e) {
    assert.instance(e, OrchError);
    assert.is((e as OrchError).diagnostic.code, 'E_TOOLCHAIN');
    assert.ok((e as OrchError).diagnostic.hint);
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));


/** A tiled launch: the transient lives per tile and its nest over-computes a halo of 1. */
function tiledBlur(tile: [number, number], k?: number): Program {
  const shapeOf = (axis: number): Expr => ({ kind: 'shape', name: 'inp', axis, dtype: 'int64' });
  const t: ArrayDecl = { name: 't', dtype: 'float64', axes: 'IJK', role: 'transient', shape: [shapeOf(0), shapeOf(1), shapeOf(2)], loc: at(3) };
  const o = [int(1), int(1), int(0)];
  const writer: HLoop = { ...hloop([assign('t', bin('*', fld('inp'), f64(2)), 11)], [int(-1), bin('+', sc('nx'), int(1))], [int(-1), bin('+', sc('ny'), int(1))]), grow: [1, 1, 1, 1] };
  const sum = bin('-', bin('+', bin('+', bin('+', fld('t', [-1, 0, 0]), fld('t', [1, 0, 0])), fld('t', [0, -1, 0])), fld('t', [0, 1, 0])), fld('t'));
  const l = launch('blur', { inp: o, out: o, t: o }, [vloop('PARALLEL', [int(0), sc('nz')], [writer, hloop([assign('out', sum, 12)])])], ['t']);
  return program('blur', [arg('inp', 'IJK'), arg('out', 'IJK'), t], [sarg('nx'), sarg('ny'), sarg('nz')], [
    { ...(l as Extract<PStmt, { kind: 'launch' }>), tile: { size: tile, ...(k ? { k } : {}), local: [{ name: 't', zeroFill: false }] } },
  ]);
}

for (const [loopOrder, openmp, tile, k] of [['IJK', true, [3, 2], undefined], ['KJI', false, [4, 5], undefined], ['IJK', true, [2, 3], 3]] as const) {
  test(`tiled launch: per-tile transient with an over-computed halo (${loopOrder}, tiles ${tile.join('x')}${k ? `x${k}` : ''}, openmp ${openmp})`, async () => {
    const [nx, ny, nz] = [11, 7, 5];
    const p = tiledBlur([...tile], k);
    const src = generateCpp(p, { ...DEFAULTS, loopOrder, openmp }).source;
    assert.ok(src.includes('st->tiles.prepare'), 'uses the per-thread tile scratch');
    assert.not.ok(/allocate\([^)]*"t"/.test(src), 'the transient has no storage of its own');
    // tiles cut along K: a full tile's K loop has a trip count g++ knows (nz = 5 runs a full
    // tile of 3 levels and a short one of 2, so both loops are checked below)
    assert.is(src.includes(`if (khi - klo == ${k}) {`) && src.includes(`k < klo + ${k}; ++k`), k !== undefined && loopOrder.endsWith('K'));
    const lib = await build(p, { loopOrder, openmp });
    const inp = filled('float64', [nx + 2, ny + 2, nz], (n) => Math.cos(n * 0.21) * 3 + n * 1e-2);
    const a = inp.data as Float64Array;
    const s = inp.shape;
    const expected = new Float64Array(a.length);
    for (let i = 1; i <= nx; i++)
      for (let j = 1; j <= ny; j++)
        for (let kk = 0; kk < nz; kk++) {
          const t = (di: number, dj: number) => 2 * a[idx3(s, i + di, j + dj, kk)];
          expected[idx3(s, i, j, kk)] = t(-1, 0) + t(1, 0) + t(0, -1) + t(0, 1) - t(0, 0);
        }
    for (let run = 0; run < 2; run++) {
      // the second run reuses the warm tile arenas
      const out = allocate('float64', [nx + 2, ny + 2, nz]);
      lib.run({ inp, out, nx, ny, nz });
      assert.equal(Array.from(out.data as Float64Array), Array.from(expected));
    }
    lib.close();
  });
}

test.run();
