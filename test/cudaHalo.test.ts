import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { presetNamed, resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { parseLayout } from '../core/layout/RankLayout.js';
import { NativeLibrary } from '../core/runtime/NativeLibrary.js';
import { generateCuda, type CudaOptions } from '../plugins/codegen/generateCuda.js';
import { buildEmulated, HostMemory } from './cudaEmulation/emulate.js';
import { runOnDevice } from './deviceRuns.js';
import { entryIR } from './gpuJobs.js';
import { firstDifference, gather, HALO_FIELDS, HALO_FIXTURE, rankInputs, simulate, type GlobalDomain } from './haloDomain.js';

/**
 * Halo exchanges in a CUDA build: the device arrays' strips are staged through host
 * buffers (native/orch_halo.h, cudaMemcpy2D per I plane) around the messages. The
 * generated CUDA of the halo fixture's diffusion runs on the CPU against the CUDA API
 * stand-in (test/cudaEmulation), on a periodic tile of one rank (so every strip is copied
 * out and back), and equals the interpreter's run bit for bit. nvcc builds the same
 * sources (orch build --preset cuda-h100, with and without compiler.mpi) where it is installed.
 */

const domain: GlobalDomain = { n: 12, nz: 2 };
const work = mkdtempSync(path.join(os.tmpdir(), 'orch-cuda-halo-'));
const preset = presetNamed('cuda-h100');
const config = await resolveConfig({ configFile: null, cwd: work, preset: 'cuda-h100' });
config.cacheRoot = work;
const options: CudaOptions = { ...preset.codegen, blockSize: preset.codegen.blockSize!, columnBlockSize: preset.codegen.columnBlockSize!, syncLaunches: false };

const t = suite('halo exchange in CUDA builds');

t('a periodic exchange of device arrays (staged through the host) equals the interpreter\'s 1x1 run bit for bit', async () => {
  const ir = await entryIR(config, { modules: [HALO_FIXTURE], entry: 'diffuse_periodic', externals: {}, defines: {} });
  assert.ok(ir.entry, ir.errors.map((d) => formatDiagnostic(d)).join('\n'));
  const entry = ir.entry!;
  const dir = path.join(work, 'diffuse_periodic');
  mkdirSync(dir, { recursive: true });
  const out = generateCuda(entry.program!, { ...options, sourceFileName: path.join(dir, 'host.cpp'), kernelFileName: path.join(dir, 'kernels.cu') });
  assert.match(out.source, 'orch::halo::start(');
  const library = await buildEmulated(out, dir);
  const one = parseLayout('1x1');
  const inputs = rankInputs(domain, one)[0];
  // the library reads the tile's boundary at its first exchange
  process.env.ORCH_BOUNDARY = 'periodic';
  const lib = NativeLibrary.open(library, out.symbol);
  let got;
  try {
    got = runOnDevice(lib, new HostMemory(), { iface: entry.iface!, program: entry.program!, inputs: { ...inputs }, call: { scalars: { nu: 0.01 } } }, options.loopOrder);
  } finally {
    lib.close();
    delete process.env.ORCH_BOUNDARY;
  }
  const want = await simulate('diffuse_periodic', one, 'periodic', domain);
  HALO_FIELDS.forEach((f, n) => {
    const field = gather([got![f]], domain, one);
    const at = firstDifference(field, want[n]);
    assert.is(at, -1, `${f} differs at ${at}: ${field[at]} vs ${want[n][at]}`);
  });
});

t.run();
