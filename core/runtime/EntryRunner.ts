import type { BuildMode, Compiler, EntryResult } from '../Compiler.js';
import { OrchErrors } from '../diagnostics.js';
import { internalError } from '../diagnostics/codes.js';
import type { Value } from '../frontend/values.js';
import { Interpreter, type InterpreterOptions } from '../interpreter/Interpreter.js';
import type { Program } from '../ir/types.js';
import type { EntryArgs, EntryInterface } from './callArgs.js';
import { CudaRuntime } from './CudaRuntime.js';
import { stageOnDevice, type DeviceArgs } from './deviceArgs.js';
import { hostCallbacks } from './hostCallbacks.js';
import { NativeLibrary } from './NativeLibrary.js';
import { entryWithoutInterface } from '../diagnostics/toolchainErrors.js';

/** An entry ready to call: interpreted (its IR) or compiled (its library). */
export interface ReadyEntry {
  result: EntryResult;
  iface: EntryInterface;
  /** The IR (python mode, or a build that ran the pipeline; a hit has none). */
  program?: Program;
}

/**
 * Running an entry, written once: build it (or look it up, or lower it for the
 * interpreter) through a Compiler, then call it on arguments, the interpreter for python
 * mode and the library otherwise (fields staged on the device for a CUDA build), any
 * number of times. `orch run`, `orch serve`, the tests and the bench use it.
 */
export class EntryRunner {
  constructor(
    readonly compiler: Compiler,
    readonly values: { externals: Record<string, Value>; defines: Record<string, number | boolean> } = { externals: {}, defines: {} },
  ) {}

  /** `stage:tap` -> milliseconds over every build this runner asked for (--time-passes). */
  readonly passTimes = new Map<string, number>();

  /** The build result of `entry` (errors included, for callers that report them their way). */
  async result(module: string, entry: string, mode: BuildMode, badEntries?: Record<string, string>): Promise<EntryResult> {
    const r = await this.compiler.build({ modules: [module], entry, ...this.values, mode, ...(badEntries ? { badEntries } : {}) });
    for (const [k, t] of r.passTimes) this.passTimes.set(k, (this.passTimes.get(k) ?? 0) + t);
    const e = r.entries[0];
    if (!e) throw new OrchErrors(r.errors);
    return e;
  }

  /** `entry` built (or looked up, or lowered) and ready to call; its diagnostics thrown otherwise. */
  async prepare(module: string, entry: string, mode: BuildMode): Promise<ReadyEntry> {
    const result = await this.result(module, entry, mode);
    if (result.status === 'error') throw new OrchErrors(result.errors);
    return ready(result);
  }

  /** The IR the interpreter runs for `entry` (a cache hit carries none: it is lowered again). */
  async program(module: string, entry: string): Promise<Program> {
    const r = await this.result(module, entry, 'python');
    if (!r.program) throw new OrchErrors(r.errors);
    return r.program;
  }

  /**
   * Calls the entry `1 + repeat` times: once on `args`, then `repeat` times on `scratch`
   * (timed on their own when given). Returns the times in seconds of the timed calls.
   */
  run(entry: ReadyEntry, args: EntryArgs, opts: { scratch?: EntryArgs; repeat?: number; interpreter?: InterpreterOptions; library?: NativeLibrary; loopOrder?: string } = {}): number[] {
    const calls = (bind: (a: EntryArgs) => void, call: () => void): number[] => {
      const times: number[] = [];
      const timed = () => {
        const t = performance.now();
        call();
        times.push((performance.now() - t) / 1000);
      };
      bind(args);
      timed();
      if (opts.scratch && opts.repeat) {
        times.length = 0;
        bind(opts.scratch);
        for (let r = 0; r < opts.repeat; r++) timed();
      }
      return times;
    };
    if (!entry.result.library) {
      if (!entry.program) throw internalError(`${entry.result.moduleRel}:${entry.result.entry} has neither a library nor IR to run`);
      const interp = new Interpreter(entry.program, { maxWhileIterations: this.compiler.config.codegen.maxWhileIterations, ...opts.interpreter });
      let bound = args;
      return calls(
        (a) => void (bound = a),
        () => interp.run(bound),
      );
    }
    const lib = opts.library ?? this.open(entry);
    // A GPU build takes device arrays: fields go to the device and come back after the runs.
    const device = lib.target === 'cuda' ? CudaRuntime.open() : undefined;
    const staged: DeviceArgs[] = [];
    try {
      lib.setCallbacks(hostCallbacks(entry.iface));
      const times = calls(
        (a) => {
          if (!device) return lib.bind(a);
          const s = stageOnDevice(device, lib.signature.params, a, opts.loopOrder ?? this.compiler.config.codegen.loopOrder);
          staged.push(s);
          lib.bind(s.args);
        },
        () => lib.run(),
      );
      for (const s of staged) s.download();
      return times;
    } finally {
      for (const s of staged) s.free();
      lib.close();
    }
  }

  /** The entry's library, opened (the caller closes it, or hands it to `run`). */
  open(entry: ReadyEntry): NativeLibrary {
    return NativeLibrary.open(entry.result.library!, entry.result.symbol!);
  }
}

/** A result as a ReadyEntry (its call interface is required). */
export function ready(result: EntryResult): ReadyEntry {
  if (!result.iface) throw entryWithoutInterface(result.key?.slice(0, 12));
  return { result, iface: result.iface, program: result.program };
}
