import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NATIVE_DIR } from '../../core/cache/hashing.js';
import { OrchError } from '../../core/diagnostics.js';
import type { ArrayDecl, Axes, DType, Expr, HLoop, Offset, PStmt, Program, ScalarVar, SourceLoc, Stmt, VLoop } from '../../core/ir/types.js';
import { layoutStrides, stageOnDevice } from '../../core/runtime/deviceArgs.js';
import { allocate, type NDArray } from '../../core/runtime/ndarray.js';
import { NativeLibrary } from '../../core/runtime/NativeLibrary.js';
import { buildEmulated, HostMemory, SHIM_DIR } from '../../test/cudaEmulation/emulate.js';
import { compileSharedLibrary } from '../../core/toolchain/gxx.js';
import { needsLevelBarrier } from '../../core/ir/columns.js';
import { generateCpp } from './generateCpp.js';
import { generateCuda, type CudaOptions } from './generateCuda.js';

// ---- IR builders ----------------------------------------------------------------------

const FILE = 'stencils/gpu_prog.py';
const at = (line: number): SourceLoc => ({ file: FILE, line, col: 5 });
const int = (value: number): Expr => ({ kind: 'lit', value, dtype: 'int64' });
const f64 = (value: number): Expr => ({ kind: 'lit', value, dtype: 'float64' });
const sc = (name: string, dtype: DType = 'int64'): Expr => ({ kind: 'scalar', name, dtype });
const fld = (name: string, offset: Offset = [0, 0, 0]): Expr => ({ kind: 'field', name, offset, dtype: 'float64' });
const add = (left: Expr, right: Expr): Expr => ({ kind: 'binary', op: '+', left, right, dtype: 'float64' });
const assign = (target: string, value: Expr, line = 10): Stmt => ({ kind: 'assign', target, value, loc: at(line) });
const hloop = (body: Stmt[]): HLoop => ({ i: { lo: int(0), hi: sc('nx') }, j: { lo: int(0), hi: sc('ny') }, body });
const vloop = (order: VLoop['order'], body: HLoop[], k: [Expr, Expr] = [int(0), sc('nz')]): VLoop => ({ order, k: { lo: k[0], hi: k[1] }, body, loc: at(5) });
const arg = (name: string, axes: Axes = 'IJK'): ArrayDecl => ({ name, dtype: 'float64', axes, role: 'arg', loc: at(1) });
const temporary = (name: string, axes: Axes): ArrayDecl => ({
  name, dtype: 'float64', axes, role: 'temporary', loc: at(2),
  shape: [...axes].map((a) => ({ kind: 'shape', name: 'inp', axis: 'IJK'.indexOf(a), dtype: 'int64' }) as Expr),
});
const sarg = (name: string, dtype: DType = 'int64'): ScalarVar => ({ name, dtype, role: 'arg' });
const zero = (rank: number): Expr[] => Array.from({ length: rank }, () => int(0));

function launch(stencil: string, arrays: ArrayDecl[], loops: VLoop[]): PStmt {
  return {
    kind: 'launch', stencil, domain: [sc('nx'), sc('ny'), sc('nz')], transients: [], loops, loc: at(20),
    origins: Object.fromEntries(arrays.map((a) => [a.name, zero(a.axes.length)])),
  };
}

function program(name: string, arrays: ArrayDecl[], scalars: ScalarVar[], body: PStmt[]): Program {
  const params = [...arrays.filter((a) => a.role === 'arg').map((a) => a.name), ...scalars.filter((s) => s.role === 'arg').map((s) => s.name)];
  return {
    name, entryKind: 'program', loc: at(1), compiletime: {}, stencils: {}, body, arrays, scalars,
    params: params.map((n) => ({ name: n, kind: arrays.some((a) => a.name === n) ? 'field' : 'scalar' })),
  };
}

/** out = tmp + inp (tmp is a program temporary never written: it must read as zero), then tmp2d = out over K. */
function withTemporaries(): Program {
  const arrays = [arg('inp'), arg('out'), temporary('tmp', 'IJK'), temporary('plane', 'IJ')];
  return program('gpu_temps', arrays, [sarg('nx'), sarg('ny'), sarg('nz')], [
    launch('accumulate', arrays, [
      vloop('PARALLEL', [hloop([assign('out', add(fld('tmp'), fld('inp')))])]),
      vloop('PARALLEL', [hloop([assign('plane', add(fld('plane'), fld('out')))])]),
      vloop('PARALLEL', [hloop([assign('out', add(fld('out'), fld('plane')))])]),
    ]),
  ]);
}

const OPTIONS: CudaOptions = { loopOrder: 'KJI', openmp: false, lineDirectives: true, blockSize: [128, 2, 1], columnBlockSize: [64, 2], syncLaunches: false };
const work = mkdtempSync(join(tmpdir(), 'orch-cuda-test-'));
let serial = 0;

async function emulated(p: Program, opts: Partial<CudaOptions> = {}): Promise<NativeLibrary> {
  const dir = join(work, `lib${serial++}`);
  const out = generateCuda(p, { ...OPTIONS, sourceFileName: join(dir, 'host.cpp'), kernelFileName: join(dir, 'kernels.cu'), ...opts });
  return NativeLibrary.open(await buildEmulated(out, dir), out.symbol);
}

function filled(shape: number[], f: (n: number) => number): NDArray {
  const a = allocate('float64', shape);
  for (let n = 0; n < a.data.length; n++) a.data[n] = f(n);
  return a;
}

function expectCode(fn: () => unknown, code: string, pattern?: RegExp): OrchError {
  try {
    fn();
  } catch (e) {
    assert.instance(e, OrchError);
    assert.is((e as OrchError).diagnostic.code, code, (e as Error).message);
    if (pattern) assert.match((e as Error).message, pattern);
    return e as OrchError;
  }
  throw new assert.Assertion({ message: `expected ${code}`, generated: true, operator: 'throws', expects: code, actual: 'no error' });
}

// ---- tests ----------------------------------------------------------------------------

test('block sizes are checked against what CUDA launches', () => {
  for (const blockSize of [[2048, 1, 1], [0, 1, 1], [32, 32, 2], [1, 1, 65], [1.5, 2, 1]] as [number, number, number][]) {
    expectCode(() => generateCuda(withTemporaries(), { ...OPTIONS, blockSize }), 'E_OPTION', /codegen\.blockSize/);
  }
  expectCode(() => generateCuda(withTemporaries(), { ...OPTIONS, columnBlockSize: [64, 32] }), 'E_OPTION', /codegen\.columnBlockSize/);
});

test('the host keeps the C ABI, adds sync and set_stream, and says it takes device arrays', () => {
  const out = generateCuda(withTemporaries(), OPTIONS);
  assert.is(out.signature.target, 'cuda');
  for (const fn of ['init', 'run', 'last_error', 'exit', 'signature', 'sync', 'set_stream']) {
    assert.match(out.source, `${out.symbol}_${fn}(`);
    assert.match(out.header, `${out.symbol}_${fn}(`);
  }
  assert.match(out.source, /#include "orch_cuda\.h"/);
  assert.match(out.source, /orch::cuda::prepare\(st, "program 'gpu_temps'", false\)/, 'nothing to record: no device error record');
  assert.match(out.source, /check_device_arg\(st, "program 'gpu_temps'", 0, "inp", A_inp\.data\)/);
  assert.match(out.header, /device memory/);
  const launchers = [...out.launchers.matchAll(/^int (\w+)\(cudaStream_t stream/gm)].map((m) => m[1]);
  assert.is(launchers.length, 3, 'one kernel per PARALLEL loop nest');
  for (const l of launchers) assert.match(out.kernels, `int ${l}(cudaStream_t stream`);
});

test('temporaries get the layout of the thread mapping (last loop axis contiguous)', () => {
  assert.match(generateCuda(withTemporaries(), OPTIONS).source, /DeviceBuffer<2, 1, 0> B_tmp;[\s\S]*DeviceBuffer<1, 0> B_plane;/);
  assert.match(generateCuda(withTemporaries(), { ...OPTIONS, loopOrder: 'IJK' }).source, /DeviceBuffer<0, 1, 2> B_tmp;[\s\S]*DeviceBuffer<0, 1> B_plane;/);
  assert.equal(layoutStrides([4, 5, 6], 'IJK', 'KJI'), [1, 4, 20]);
  assert.equal(layoutStrides([4, 5, 6], 'IJK', 'IJK'), [30, 6, 1]);
  assert.equal(layoutStrides([4, 6], 'IK', 'KJI'), [1, 4]);
});

test('threads follow the loop order: its last axis runs along x', () => {
  const kernels = generateCuda(withTemporaries(), OPTIONS).kernels;
  assert.match(kernels, /for \(int64_t i = ilo0 \+ \(int64_t\)blockIdx\.x/);
  // K runs along z, but innermost in each thread: a thread walks its levels (the grid is capped along z)
  assert.match(kernels, /for \(int64_t i = ilo0 [^\n]*\n\s*for \(int64_t k = klo0 \+ \(int64_t\)blockIdx\.z/);
  const kFirst = generateCuda(withTemporaries(), { ...OPTIONS, loopOrder: 'IJK' }).kernels;
  assert.match(kFirst, /for \(int64_t k = klo0 \+ \(int64_t\)blockIdx\.x/);
});

test('a K sweep that reads other columns of what it writes needs a barrier per level', () => {
  const own = vloop('FORWARD', [hloop([assign('b', add(fld('b', [0, 0, -1]), fld('a', [1, 0, 0])))])]);
  const lateral = vloop('FORWARD', [hloop([assign('b', add(fld('b', [1, 0, -1]), fld('a')))])]);
  const split = vloop('FORWARD', [hloop([assign('t', fld('a'))]), hloop([assign('b', fld('t', [0, -1, 0]))])]);
  assert.is(needsLevelBarrier(own), false, 'offsets in K and reads of unwritten arrays stay in the column');
  assert.is(needsLevelBarrier(lateral), true);
  assert.is(needsLevelBarrier(split), true);
  const p = program('lateral', [arg('a'), arg('b')], [sarg('nx'), sarg('ny'), sarg('nz')], [launch('lat', [arg('a'), arg('b')], [lateral])]);
  const out = generateCuda(p, OPTIONS);
  assert.match(out.source, /for \(int64_t k = klo; k < khi; \+\+k\) \{\s*if \(ihi0 > ilo0 && jhi0 > jlo0\) \{\s*if \(orch::cuda::launched/);
});

test('syncLaunches synchronizes after every launch', () => {
  assert.match(generateCuda(withTemporaries(), OPTIONS).source, /orch::cuda::launched\([^;]*, false\)\) return 1;/);
  const synced = generateCuda(withTemporaries(), { ...OPTIONS, syncLaunches: true }).source;
  assert.not.match(synced, /launched\([^;]*, false\)\) return 1;/);
  assert.match(synced, /orch::cuda::launched\([^;]*, true\)\) return 1;/);
});

/** out = inp[0, 0, dk] (dk a runtime scalar): a read at a variable K offset. */
function variableK(): Program {
  const arrays = [arg('inp'), arg('out')];
  const read: Expr = { kind: 'field', name: 'inp', offset: [0, 0, 0], kOffset: sc('dk'), dtype: 'float64', loc: at(11) };
  return program('gpu_vk', arrays, [sarg('nx'), sarg('ny'), sarg('nz'), sarg('dk')], [launch('lookup', arrays, [vloop('PARALLEL', [hloop([assign('out', read, 11)])])])]);
}

test('variable K reads record into the device error record, reported at sync', () => {
  const out = generateCuda(variableK(), OPTIONS);
  assert.match(out.kernels, /orch::cuda::vk_read\(p_inp[^;]*, errors, vk_failed, 0, i, j, k\)/);
  assert.match(out.source, /orch::cuda::prepare\(st, "program 'gpu_vk'", true\)/);
  assert.match(out.source, /case 0: return orch::vk_report\(st, /);
  assert.not.match(out.source, /read_errors/, 'no synchronization inside run');
  assert.match(generateCuda(variableK(), { ...OPTIONS, syncLaunches: true }).source, /orch::cuda::read_errors\(st, "program 'gpu_vk': stencil 'lookup'/);
});

test('emulated: a variable K read outside the array fails at sync with its source line; the handle stays usable', async () => {
  const lib = await emulated(variableK());
  const memory = new HostMemory();
  const [nx, ny, nz] = [5, 4, 3];
  const inp = filled([nx, ny, nz], (n) => n);
  const out = allocate('float64', [nx, ny, nz]);
  const bad = stageOnDevice(memory, lib.signature.params, { inp, out, nx, ny, nz, dk: 1 }, 'KJI');
  lib.run(bad.args, { async: true });  // only queued: the error surfaces at sync
  const e = expectCode(() => lib.sync(), 'E_OUT_OF_BOUNDS', /stencil 'lookup': field 'inp' is read at a variable K offset at K index 3, outside its 3 levels \(compute point \d, \d, 2\)/);
  assert.is(e.diagnostic.loc?.line, 11);
  lib.sync();  // reported once: the record is cleared
  bad.free();
  const good = stageOnDevice(memory, lib.signature.params, { inp, out, nx, ny, nz, dk: 0 }, 'KJI');
  lib.run(good.args);
  good.download();
  good.free();
  assert.equal([...out.data], [...inp.data]);
  lib.close();
  // With syncLaunches, run itself reports it.
  const synced = await emulated(variableK(), { syncLaunches: true });
  const again = stageOnDevice(memory, synced.signature.params, { inp, out, nx, ny, nz, dk: -1 }, 'KJI');
  expectCode(() => synced.run(again.args, { async: true }), 'E_OUT_OF_BOUNDS', /at K index -1, outside its 3 levels \(compute point \d, \d, 0\)/);
  again.free();
  synced.close();
});

test('emulated: temporaries are zero-filled pool memory, and IJ sums over K run in order', async () => {
  const lib = await emulated(withTemporaries());
  const [nx, ny, nz] = [9, 7, 5];
  const inp = filled([nx, ny, nz], (n) => 1 + (n % 13) * 0.5);
  const out = allocate('float64', [nx, ny, nz]);
  const staged = stageOnDevice(new HostMemory(), lib.signature.params, { inp, out, nx, ny, nz }, 'KJI');
  lib.run(staged.args, { async: true });
  lib.sync();
  staged.download();
  staged.free();
  const x = inp.data as Float64Array;
  for (let i = 0; i < nx; i++)
    for (let j = 0; j < ny; j++) {
      let plane = 0;
      for (let k = 0; k < nz; k++) plane += x[(i * ny + j) * nz + k];
      for (let k = 0; k < nz; k++) {
        const n = (i * ny + j) * nz + k;
        assert.is(out.data[n], x[n] + plane, `out[${i}, ${j}, ${k}]`);
      }
    }
  lib.close();
});

/** t1 = inp + t2 (t2 is read before it is written: zero), t2 = inp, out = t1 + t2; both transients of the launch. */
function withTransients(): Program {
  const transient = (name: string): ArrayDecl => ({ ...temporary(name, 'IJK'), role: 'transient' });
  const arrays = [arg('inp'), arg('out'), transient('t1'), transient('t2')];
  const l = launch('fill', arrays, [
    vloop('PARALLEL', [hloop([assign('t1', add(fld('inp'), fld('t2'))), assign('t2', fld('inp')), assign('out', add(fld('t1'), fld('t2')))])]),
  ]);
  return program('gpu_transients', arrays, [sarg('nx'), sarg('ny'), sarg('nz')], [{ ...l, transients: ['t1', 't2'] } as PStmt]);
}

test('emulated: a transient written before every read skips the zero fill, one read first keeps it; K loops over several levels per thread', async () => {
  const out0 = generateCuda(withTransients(), OPTIONS);
  assert.match(out0.source, /B_t1\.allocate\([^;]*, false\)\) return 1;/, 't1 is written before it is read');
  assert.match(out0.source, /B_t2\.allocate\([^;]*, true\)\) return 1;/, 't2 is read before it is written');
  const lib = await emulated(withTransients());
  // 40 levels on a one-multiprocessor emulated device: 16 blocks along K, so threads stride
  const [nx, ny, nz] = [5, 3, 40];
  const inp = filled([nx, ny, nz], (n) => 1 + (n % 7) * 0.25);
  const out = allocate('float64', [nx, ny, nz]);
  const staged = stageOnDevice(new HostMemory(), lib.signature.params, { inp, out, nx, ny, nz }, 'KJI');
  lib.run(staged.args);
  staged.download();
  staged.free();
  for (let n = 0; n < out.data.length; n++) assert.is(out.data[n], 2 * (inp.data[n] as number), `point ${n}`);
  lib.close();
});

test('launch shapes: blocks leave few threads idle along I, K gets only the blocks that fill the device, region-only nests only where their regions are', async () => {
  const src = join(work, 'shapes.cpp');
  writeFileSync(
    src,
    [
      '#include <cstdio>',
      '#include "orch_cuda.h"',
      'int main() {',
      '  const int64_t fits[][3] = {{190, 190, 80}, {192, 192, 80}, {512, 512, 80}, {24, 24, 72}, {100, 1, 1}};',
      '  for (auto& f : fits) { dim3 b = orch::cuda::fit_block(dim3(128, 2, 1), f[0], f[1], f[2]); std::printf("%ux%ux%u ", b.x, b.y, b.z); }',
      '  std::printf("| %u %u %u %u\\n", orch::cuda::layers(80, dim3(64, 4, 1), 144, 132), orch::cuda::layers(80, dim3(64, 4, 1), 144, 0),',
      '              orch::cuda::layers(6, dim3(64, 4, 1), 144, 132), orch::cuda::layers(80, dim3(128, 2, 1), 100000, 132));',
      '  const int64_t corners[][4] = {{-1, 0, -1, 0}, {10, 11, 10, 11}}, west[][4] = {{0, 1, INT64_MIN, INT64_MAX}}, sides[][4] = {{0, 1, 2, 4}, {9, 10, 3, 5}};',
      '  for (auto [boxes, n] : {std::pair{corners, 2}, std::pair{west, 1}, std::pair{sides, 2}}) {',
      '    int64_t r[4] = {0, 10, 0, 10};',
      '    orch::cuda::narrow_to_regions(r, boxes, n);',
      '    if (r[1] > r[0]) std::printf("[%lld %lld %lld %lld] ", (long long)r[0], (long long)r[1], (long long)r[2], (long long)r[3]); else std::printf("none ");',
      '  }',
      '}',
    ].join('\n'),
  );
  const exe = join(work, 'shapes');
  await execa('g++', ['-std=c++17', `-I${SHIM_DIR}`, `-I${NATIVE_DIR}`, src, '-o', exe]);
  const { stdout } = await execa(exe);
  // 190: 64 x 4 (192 threads per row, not 256); 512: unchanged; 24: one warp wide; 100: y has no room
  // layers: 132 SMs x 8 blocks x 2 waves over 144 blocks per layer = 15 of 80; unknown device: all; few levels: all; a huge layer: 1
  // region-only nests over [0, 10) x [0, 10): corners outside it launch nothing, a west edge one column, two sides their hull
  assert.is(stdout.trim(), '64x4x1 64x4x1 128x2x1 32x8x1 128x2x1 | 15 80 6 1\nnone [0 1 0 10] [0 10 2 5]');
});

test('emulated: bounds are checked on the host, naming program and stencil', async () => {
  const lib = await emulated(withTemporaries());
  const memory = new HostMemory();
  const inp = allocate('float64', [4, 4, 3]);
  const out = allocate('float64', [4, 4, 3]);
  const staged = stageOnDevice(memory, lib.signature.params, { inp, out, nx: 5, ny: 4, nz: 3 }, 'KJI');
  const err = expectCode(() => lib.run(staged.args), 'E_OUT_OF_BOUNDS', /^stencil 'accumulate': array '\w+' is accessed at I indices \[0, 4\]/);
  assert.equal(err.diagnostic.loc, { file: 'stencils/gpu_prog.py', line: 20, col: 5 });
  staged.free();
  lib.close();
});

test('device and host arrays are not interchangeable', async () => {
  const lib = await emulated(withTemporaries());
  const host = allocate('float64', [4, 4, 3]);
  expectCode(() => lib.bind({ inp: host, out: host, nx: 4, ny: 4, nz: 3 }), 'E_ARG_DEVICE', /'inp' is a host array, but program 'gpu_temps' was built for a GPU/);
  const dev = { devicePtr: 0x1000n, dtype: 'float64' as const, shape: [4, 4, 3] };
  expectCode(() => lib.bind({ inp: { ...dev, dtype: 'float32' }, out: dev, nx: 4, ny: 4, nz: 3 }), 'E_ARG_DTYPE');
  expectCode(() => lib.bind({ inp: { ...dev, strides: [1, 4] }, out: dev, nx: 4, ny: 4, nz: 3 }), 'E_ARG_SHAPE', /strides/);
  expectCode(() => lib.bind({ inp: { ...dev, devicePtr: 0n }, out: dev, nx: 4, ny: 4, nz: 3 }), 'E_ARG_DEVICE', /null device pointer/);
  lib.setStream(null);
  lib.close();

  const cpu = generateCpp(withTemporaries(), { loopOrder: 'IJK', openmp: false, lineDirectives: false });
  const src = join(work, 'cpu.cpp');
  writeFileSync(src, cpu.source);
  await compileSharedLibrary({ compiler: 'g++', flags: ['-O0', '-std=c++17'], source: src, output: join(work, 'libcpu.so'), includeDirs: [NATIVE_DIR] });
  const cpuLib = NativeLibrary.open(join(work, 'libcpu.so'), cpu.symbol);
  assert.is(cpuLib.target, 'cpu');
  expectCode(() => cpuLib.bind({ inp: dev, out: host, nx: 4, ny: 4, nz: 3 }), 'E_ARG_DEVICE', /CPU build/);
  expectCode(() => cpuLib.setStream(null), 'E_TARGET');
  cpuLib.sync();
  cpuLib.close();
});

test.run();
