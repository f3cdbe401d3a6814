import { exitStatus } from './failure.js';
import { ensureDir } from '../core/cache/ensureDir.js';
import path from 'node:path';
import { OrchError } from '../core/diagnostics.js';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import { buildEntryArgs, type CallSpec, type EntryArgs, type EntryInterface } from '../core/runtime/callArgs.js';
import { cloneArray, type NDArray } from '../core/runtime/ndarray.js';
import { NativeLibrary } from '../core/runtime/NativeLibrary.js';
import { readNpy, writeNpy } from '../core/runtime/npy.js';
import { compareArrays, type Comparison } from '../core/runtime/compareArrays.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';
import { Compiler } from '../core/Compiler.js';
import { EntryRunner, ready } from '../core/runtime/EntryRunner.js';
import { layoutText } from '../core/layout/RankLayout.js';
import { launcherRank, parseBoundary } from '../core/layout/HaloTopology.js';
import { layoutRequest, type LayoutOptions } from './layoutOptions.js';
import { cacheMiss } from '../core/diagnostics/codes.js';
import { checkShapeFits, parseIntList, parseOrigin, parseRepeat, parseScalars, parseShape } from './callOptions.js';
import { soleEntry } from './soleEntry.js';
import { openSession, parseTarget, timePassesTable, type CommonOptions } from './session.js';
import { printDiagnostics } from './failure.js';
import { outputsUnwritable } from '../core/diagnostics/runtimeErrors.js';
import { inNotNamePath, layoutRunNeedsRank } from '../core/diagnostics/usageErrors.js';

/**
 * python: interpret (no native build); build: build (or hit), then exit without running;
 * build-and-run: build on a miss, then run; run: load only, a missing or stale entry is an error.
 */
export type RunMode = 'python' | 'build' | 'build-and-run' | 'run';

export interface RunOptions extends CommonOptions, LayoutOptions {
  target: string;
  /** Tile boundary of halo exchanges: edges (default, or $ORCH_BOUNDARY) or periodic. */
  boundary?: string;
  mode: RunMode;
  domain?: string;
  origin?: string;
  scalars?: string;
  in?: string[];
  out?: string;
  /** Further timed calls, as written (checked here). */
  repeat?: string;
  /** Also run the interpreter and compare every field. */
  check?: boolean;
  /** Fill fields not given with --in: NX,NY,NZ of the IJK fields. */
  shape?: string;
}

interface RunReport {
  entry: string;
  module: string;
  mode: RunMode;
  cache: 'hit' | 'miss' | 'none';
  /** Layout runs: the code path the rank resolved to. */
  codepath?: string;
  reason?: string;
  build_s: number;
  run_s_median: number;
  run_s_min: number;
  runs: number;
  outputs: string[];
  check?: Comparison & { passed: boolean };
}

function readInputs(specs: string[]): Record<string, NDArray> {
  const out: Record<string, NDArray> = {};
  for (const s of specs) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw inNotNamePath(s);
    out[s.slice(0, eq)] = readNpy(s.slice(eq + 1));
  }
  return out;
}

function stats(times: number[]): { median: number; min: number } {
  const s = [...times].sort((a, b) => a - b);
  return { median: s.length ? s[Math.floor(s.length / 2)] : 0, min: s.length ? s[0] : 0 };
}

function cloneArgs(args: EntryArgs): EntryArgs {
  const out: EntryArgs = {};
  for (const [k, v] of Object.entries(args)) out[k] = typeof v === 'object' ? cloneArray(v) : v;
  return out;
}

/** `orch run`: one call of a stencil or program on fields from .npy files. */
export async function runCommand(opts: RunOptions): Promise<number> {
  const [file, entryName] = parseTarget(opts.target);
  const session = await openSession(opts);
  // under mpirun each process is one rank, and finds its rank from the launcher
  const launched = launcherRank();
  if (opts.rank === undefined && launched !== undefined && (opts.layout ?? session.config.layout)) opts = { ...opts, rank: launched };
  const layout = layoutRequest(opts, session.config);
  const boundary = parseBoundary(opts.boundary ?? (process.env.ORCH_BOUNDARY || 'edges'));
  // what the compiled halo exchange reads (native/orch_halo.h)
  process.env.ORCH_BOUNDARY = boundary;
  if (layout) process.env.ORCH_LAYOUT = layoutText(layout.target.layout);
  if (layout && layout.codepaths.length > 1) {
    throw layoutRunNeedsRank(opts.layout ?? session.config.layout?.layout, layout.codepaths.join(', '));
  }
  const compiler = layout ? new Compiler(session.config, session.compiler.pipeline, layout.codepaths[0], layout.target) : session.compiler;
  // the command line is checked whole before anything is read, built or run
  const repeat = parseRepeat(opts.repeat);
  const shape = opts.shape ? parseShape(opts.shape) : undefined;
  const scalars = parseScalars(opts.scalars);
  const origin = opts.origin ? parseOrigin(opts.origin) : undefined;
  const domain = opts.domain ? parseIntList(opts.domain, 'domain') : undefined;
  const fields = readInputs(opts.in ?? []);
  const t0 = performance.now();
  const name = entryName ?? (await soleEntry(session.config.pythonPath, file));
  const mode = opts.mode === 'python' ? 'python' : opts.mode === 'run' ? 'lookup' : 'build';
  const runner = new EntryRunner(compiler, { externals: session.externals, defines: session.defines });
  let entry = await runner.result(file, name, mode);
  let opened: NativeLibrary | undefined;
  if (entry.status === 'hit' && opts.mode !== 'build') {
    try {
      opened = runner.open(ready(entry));
    } catch (e) {
      if (!(e instanceof OrchError) || e.diagnostic.code !== 'E_LOAD' || !entry.key) throw e;
      // a cached library that does not load is marked bad: rebuilt here (or a miss that says why in run mode)
      session.err(`orch: the cached library of ${entry.moduleRel}:${entry.entry} does not load; marked bad${mode === 'build' ? ', rebuilding' : ''}: ${e.diagnostic.message}`);
      entry = await runner.result(file, name, mode, { [entry.key]: e.diagnostic.message });
    }
  }
  const buildS = (performance.now() - t0) / 1000;
  if (opts.timePasses) session.err(timePassesTable(runner.passTimes));
  if (entry.status === 'error') {
    printDiagnostics(entry.errors, opts.verbose);
    return exitStatus(entry.errors);
  }
  if (entry.status === 'miss') {
    const where = layout ? ` (code path ${compiler.codepath} of rank ${opts.rank ?? 0} in layout ${layoutText(layout.target.layout)})` : '';
    throw cacheMiss(`${entry.moduleRel}:${entry.entry}${where}`, entry.reason, layout ? 'orch build --layout ... --rank-domain ..., or --mode build-and-run' : 'orch build, or --mode build-and-run');
  }
  printDiagnostics(entry.warnings, opts.verbose);
  if (opts.mode === 'build') {
    const cache = entry.status === 'hit' ? 'hit' : 'miss';
    if (opts.json) session.out(JSON.stringify({ entry: entry.entry, module: entry.moduleRel, mode: opts.mode, cache, reason: entry.reason, codepath: layout ? compiler.codepath : undefined, build_s: buildS, runs: 0, outputs: [], library: entry.library }));
    else if (!opts.quiet) session.out(`${entry.moduleRel}:${entry.entry} [build] ${cache === 'hit' ? 'cache hit' : `built (${entry.reason})`} in ${buildS.toFixed(3)} s; not run (mode build)`);
    return 0;
  }
  const iface = ready(entry).iface;
  if (shape) {
    checkShapeFits(iface, shape, fields, opts.shape!);
    Object.assign(fields, syntheticInputs(iface, shape, fields));
  }
  const spec: CallSpec = { fields, scalars, origin, domain };
  const args = buildEntryArgs(iface, spec);
  const reference = opts.check ? cloneArgs(args) : undefined;
  const scratch = repeat > 0 ? cloneArgs(args) : undefined;
  const times = runner.run(ready(entry), args, { scratch, repeat, interpreter: { boundary, layout: layout?.target.layout }, library: opened, loopOrder: session.config.codegen.loopOrder });

  let check: RunReport['check'];
  if (reference) {
    const ir = entry.program ?? (await new EntryRunner(new Compiler(session.config, { verifyIR: false, printIrAfter: [], timePasses: false, print: session.err }, compiler.codepath, compiler.layout), runner.values).program(file, entry.entry));
    new Interpreter(ir, { boundary, layout: layout?.target.layout, maxWhileIterations: session.config.codegen.maxWhileIterations }).run(reference);
    const cmp = compareArrays(fieldsOf(iface, reference), fieldsOf(iface, args));
    const passed = cmp.maxRel <= 1e-12 || cmp.maxAbs <= 1e-13;
    check = { ...cmp, passed };
  }

  const outputs: string[] = [];
  // ranks of one mpirun write beside each other
  const outDir = opts.out && launched !== undefined ? path.join(opts.out, `rank${opts.rank ?? launched}`) : opts.out;
  if (outDir) {
    try {
      ensureDir(outDir);
      for (const p of iface.params) {
        if (p.kind !== 'field') continue;
        const f = path.join(outDir, `${p.name}.npy`);
        writeNpy(f, args[p.name] as NDArray);
        outputs.push(f);
      }
    } catch (e) {
      if (e instanceof OrchError) throw e;
      throw outputsUnwritable(outDir, (e as Error).message);
    }
  }
  const st = stats(times);
  const report: RunReport = {
    entry: entry.entry,
    module: entry.moduleRel,
    mode: opts.mode,
    cache: opts.mode === 'python' ? 'none' : entry.status === 'hit' ? 'hit' : 'miss',
    reason: entry.status === 'built' ? entry.reason : undefined,
    codepath: layout ? compiler.codepath : undefined,
    build_s: buildS,
    run_s_median: st.median,
    run_s_min: st.min,
    runs: times.length,
    outputs,
    check,
  };
  if (opts.json) session.out(JSON.stringify(report));
  else if (!opts.quiet) {
    const cache = report.cache === 'none' ? 'interpreted' : report.cache === 'hit' ? 'cache hit' : `built (${report.reason})`;
    session.out(`${entry.moduleRel}:${entry.entry} [${opts.mode}] ${cache} in ${buildS.toFixed(3)} s; run median ${(st.median * 1e3).toFixed(3)} ms, min ${(st.min * 1e3).toFixed(3)} ms over ${times.length} call(s)`);
    if (check) session.out(`check against the interpreter: ${check.passed ? 'match' : 'MISMATCH'} (max abs diff ${check.maxAbs.toExponential(2)}, max rel diff ${check.maxRel.toExponential(2)}, ${check.points} points in ${check.fields} fields)`);
    if (outputs.length) session.out(`wrote ${outputs.length} field(s) to ${outDir}`);
  }
  return check && !check.passed ? 1 : 0;
}

function fieldsOf(iface: EntryInterface, args: EntryArgs): Record<string, NDArray> {
  const out: Record<string, NDArray> = {};
  for (const p of iface.params) if (p.kind === 'field') out[p.name] = args[p.name] as NDArray;
  return out;
}
