import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { presetNamed, resolveConfig } from '../../cli/toolset.js';
import type { DebugOptions } from '../../core/config/types.js';
import { formatDiagnostic, OrchError } from '../../core/diagnostics.js';
import { NativeLibrary } from '../../core/runtime/NativeLibrary.js';
import { syntheticInputs } from '../../core/runtime/syntheticInputs.js';
import { generateCuda } from '../../plugins/codegen/generateCuda.js';
import { runOnDevice } from '../deviceRuns.js';
import { entryIR } from '../gpuJobs.js';
import { buildEmulated, HostMemory } from './emulate.js';

/**
 * `orch run` of a cuda-h100 build, emulated on the CPU, as a process of its own: what the
 * library writes to stderr (log-mode debug reports) is the test's to read. Arguments, one
 * JSON object: {module, entry, shape, scalars, debug?: Partial<DebugOptions>}. The threads'
 * order comes from ORCH_EMULATE_ORDER. Exits 0, or 1 after printing the diagnostic as the
 * CLI does.
 */

interface Request {
  module: string;
  entry: string;
  shape: number[];
  scalars: Record<string, number | boolean>;
  debug?: Partial<DebugOptions>;
}

const req = JSON.parse(process.argv[2]) as Request;
const work = mkdtempSync(path.join(os.tmpdir(), 'orch-cuda-emulated-run-'));
const config = await resolveConfig({ configFile: null, cwd: work, preset: 'cuda-h100', debug: req.debug !== undefined });
config.cacheRoot = work;
if (req.debug) config.debug = { ...config.debug, ...req.debug };
const codegen = presetNamed('cuda-h100').codegen;

try {
  const ir = await entryIR(config, { modules: [req.module], entry: req.entry, externals: {}, defines: {} });
  if (!ir.entry) {
    for (const d of ir.errors) process.stderr.write(`${formatDiagnostic(d)}\n`);
    process.exit(1);
  }
  const out = generateCuda(ir.entry.program!, {
    ...codegen,
    blockSize: codegen.blockSize!,
    columnBlockSize: codegen.columnBlockSize!,
    syncLaunches: false,
    sourceFileName: path.join(work, 'host.cpp'),
    kernelFileName: path.join(work, 'kernels.cu'),
  });
  const lib = NativeLibrary.open(await buildEmulated(out, work), out.symbol);
  try {
    const iface = ir.entry.iface!;
    runOnDevice(lib, new HostMemory(), { iface, program: ir.entry.program!, inputs: syntheticInputs(iface, req.shape, {}), call: { scalars: req.scalars } }, codegen.loopOrder);
  } finally {
    lib.close();
  }
} catch (e) {
  if (!(e instanceof OrchError)) throw e;
  process.stderr.write(`${formatDiagnostic(e.diagnostic)}\n`);
  process.exit(1);
}
