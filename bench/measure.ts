import { Compiler } from '../core/Compiler.js';
import type { CodegenOptions } from '../core/config/types.js';
import { resolveConfig } from '../cli/toolset.js';
import { buildEntryArgs } from '../core/runtime/callArgs.js';
import type { NativeLibrary } from '../core/runtime/NativeLibrary.js';
import { EntryRunner } from '../core/runtime/EntryRunner.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';
import { StencilByStencil, type StencilLibrary } from './stencilByStencil.js';

/**
 * One timing, in its own process so OMP_NUM_THREADS takes effect: a program run as one
 * orchestrated library, or stencil by stencil. Prints one JSON line.
 */
export interface MeasureRequest {
  file: string;
  entry: string;
  mode: 'orchestrated' | 'stencil-by-stencil';
  shape: number[];
  scalars: Record<string, number>;
  cacheRoot: string;
  preset: string;
  minSeconds: number;
  /** Overrides the preset's tile size (tuning experiments; false: untiled). */
  tile?: [number, number] | false;
  /** Overrides the preset's codegen options (the schedule orch tune chose). */
  codegen?: Partial<CodegenOptions>;
}

async function main(req: MeasureRequest): Promise<void> {
  const config = await resolveConfig({ configFile: null, preset: req.preset });
  config.cacheRoot = req.cacheRoot;
  if (req.tile !== undefined) config.codegen = { ...config.codegen, tile: req.tile };
  if (req.codegen) config.codegen = { ...config.codegen, ...req.codegen };
  const runner = new EntryRunner(new Compiler(config, { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined }));
  const build = (entry: string) => runner.prepare(req.file, entry, 'build');
  const main = await build(req.entry);
  const fields = syntheticInputs(main.iface, req.shape, {});
  const args = buildEntryArgs(main.iface, { fields, scalars: req.scalars });
  const opened: NativeLibrary[] = [];
  let call: () => void;
  if (req.mode === 'orchestrated') {
    const lib = runner.open(main);
    opened.push(lib);
    lib.bind(args);
    call = () => lib.run();
  } else {
    const parsed = new EntryRunner(new Compiler(config, { verifyIR: false, printIrAfter: [], timePasses: false, stopAfter: 'parse', print: () => undefined }));
    const program = await parsed.program(req.file, req.entry);
    const libraries: Record<string, StencilLibrary> = {};
    for (const name of Object.keys(program.stencils)) {
      const e = await build(program.stencils[name].name);
      const lib = runner.open(e);
      opened.push(lib);
      libraries[name] = { lib, iface: e.iface };
    }
    const sbs = new StencilByStencil(program, libraries);
    call = () => sbs.run(args);
  }
  // warm-up: the thread pool, the scratch arenas and the caches settle (a few calls were
  // not enough at 12x12x79, where one call is tens of microseconds)
  const warm = process.hrtime.bigint();
  for (let w = 0; w < 20 || Number(process.hrtime.bigint() - warm) < 20e6; w++) call();
  const times: number[] = [];
  let total = 0;
  while ((total < req.minSeconds || times.length < 21) && times.length < 20000) {
    const t0 = process.hrtime.bigint();
    call();
    const dt = Number(process.hrtime.bigint() - t0) / 1e9;
    times.push(dt);
    total += dt;
  }
  times.sort((a, b) => a - b);
  for (const l of opened) l.close();
  process.stdout.write(`${JSON.stringify({ median_s: times[Math.floor(times.length / 2)], min_s: times[0], runs: times.length })}\n`);
}

main(JSON.parse(process.argv[2]) as MeasureRequest).catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
