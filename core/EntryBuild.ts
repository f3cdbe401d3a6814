import type { EntryInputs } from './cache/BuildCache.js';
import type { Diagnostic } from './diagnostics.js';
import type { Program } from './ir/types.js';
import type { LayoutContext } from './frontend/layoutExternals.js';
import type { Value } from './frontend/values.js';
import type { Closure } from './frontend/closure.js';

/** Static memory report of one program (written by the analyze stage). */
export interface MemoryReport {
  /**
   * `storage`: where the array lives (device arrays in a CUDA build); `tile`: a transient
   * that lives per tile of its launch, in the thread's tile scratch (e.g. 'per 8x8 tile').
   */
  arrays: { name: string; role: string; dtype: string; axes: string; bytesPerElement: number; shape: string[]; pooled: boolean; offset?: string; zeroFill: boolean; storage?: 'host' | 'device'; tile?: string }[];
  totals: Record<string, { arrays: number; note: string }>;
  /** symbolic peak bytes of each arena (sizes depend on the call's shapes) */
  peak: { temporaryArenaBytes: string; transientArenaBytes: string };
}

/**
 * One entry (a program, or a stencil run directly) of one module going through the
 * pipeline. Stage plugins read and replace `program`, and fill in the outputs.
 */
export interface EntryBuild {
  /** Absolute path of the module. */
  module: string;
  /** Module path relative to the project root, as shown to users and used in the cache. */
  moduleRel: string;
  entry: string;
  externals: Record<string, Value>;
  defines: Record<string, number | boolean>;
  /** An orchestrated component's resolved closure (core/frontend/closure.ts); part of `inputs`. */
  closure?: Closure;
  /** Layout builds: the code path and rank grid this entry is specialized for. */
  layout?: LayoutContext;
  inputs: EntryInputs;
  optionsKey: string;
  /** The IR as the last stage left it. */
  program?: Program;
  /** Source files the parse stage read, with their content (the key is computed from them). */
  files: Map<string, string>;
  /** Paths the imports probed and found absent before resolving: one appearing would change the build. */
  absent?: string[];
  /** Environment variables the parse stage read (`os.environ` in module code), with their values (null: unset); part of the key. */
  env: Map<string, string | null>;
  key?: string;
  /** Staging folder the codegen/compile/emit stages write into. */
  staging?: string;
  /** Final cache folder, set by emit. */
  dir?: string;
  /**
   * `extraFiles`: more generated sources of the entry (the .cu and launcher header of a CUDA
   * build), `compiledFiles` those of them the compiler is given; `binding`: the generated
   * Python binding (file name).
   */
  cpp?: { source: string; header: string; symbol: string; signature: unknown; file?: string; extraFiles?: string[]; compiledFiles?: string[]; binding?: string };
  library?: string;
  command?: string[];
  memory?: MemoryReport;
  warnings: Diagnostic[];
  timings: Record<string, number>;
}
