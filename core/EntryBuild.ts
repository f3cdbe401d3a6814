import type { CodegenOptions } from './config/types.js';
import type { EntryInputs } from './cache/BuildCache.js';
import type { EntryTransaction } from './cache/EntryCache.js';
import type { Diagnostic } from './diagnostics.js';
import { internalError } from './diagnostics/codes.js';
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

/** parse: what the entry's IR was built from (the cache key is made from it). */
export interface Parsed {
  /** Source files read, with their content (the key is computed from them). */
  files: Map<string, string>;
  /** Environment variables read (`os.environ` in module code), with their values (null: unset); part of the key. */
  env: Map<string, string | null>;
  /** Paths the imports probed and found absent before resolving: one appearing would change the build. */
  absent: string[];
}

/** libraryExpansion: the IR holds loop nests, no stencil node. */
export interface Expanded {
  /** The tile size every launch was marked with (false: no tiling; 'auto': the tiling pass picks one per launch). */
  tile: [number, number] | [number, number, number] | false | 'auto';
}

/** codegen: the generated sources, in the staging folder. */
export interface Generated {
  /** Staging folder codegen, compile and emit write into. */
  staging: string;
  symbol: string;
  /** The main source file (absolute). */
  file: string;
  /** More generated sources (the .cu and launcher header of a CUDA build), absolute. */
  extraFiles: string[];
  /** Those of `extraFiles` the compiler is given. */
  compiledFiles: string[];
  /** The generated Python binding (file name in the staging folder). */
  binding?: string;
  signature: unknown;
}

/** compile: the shared library in the staging folder. */
export interface Compiled {
  library: string;
  command: string[];
}

/** emit: the committed cache entry. */
export interface Emitted {
  dir: string;
  library: string;
}

/** The typed product each stage leaves (the `product` column of the pipeline table). */
export interface StageProducts {
  parsed: Parsed;
  expanded: Expanded;
  generated: Generated;
  compiled: Compiled;
  analyzed: MemoryReport;
  emitted: Emitted;
}

export type ProductName = keyof StageProducts;

/** What an EntryBuild starts with: which entry, built how. */
export interface EntryContext {
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
  /**
   * The codegen options of this entry: the config's, with a schedule `orch tune
   * --write-cache` recorded for it laid over them (core/cache/tunedSchedules.ts). Absent:
   * the config's.
   */
  codegen?: CodegenOptions;
  /** The entry's cache transaction (staging folder, key, commit); none in python mode, which caches nothing. */
  cache?: EntryTransaction;
}

/**
 * One entry (a program, or a stencil run directly) of one module going through the
 * pipeline. Stages read and replace `program` and leave their typed products; a stage
 * that needs a product no earlier stage left gets an internal error, never a quiet skip.
 */
export class EntryBuild implements EntryContext {
  readonly module: string;
  readonly moduleRel: string;
  readonly entry: string;
  readonly externals: Record<string, Value>;
  readonly defines: Record<string, number | boolean>;
  readonly closure?: Closure;
  readonly layout?: LayoutContext;
  readonly inputs: EntryInputs;
  readonly codegen?: CodegenOptions;
  readonly cache?: EntryTransaction;
  readonly warnings: Diagnostic[] = [];
  /** stage -> seconds */
  readonly timings: Record<string, number> = {};
  private ir: Program | undefined;
  private readonly products: Partial<StageProducts> = {};

  constructor(context: EntryContext) {
    this.module = context.module;
    this.moduleRel = context.moduleRel;
    this.entry = context.entry;
    this.externals = context.externals;
    this.defines = context.defines;
    this.closure = context.closure;
    this.layout = context.layout;
    this.inputs = context.inputs;
    this.codegen = context.codegen;
    this.cache = context.cache;
  }

  /** The IR as the last stage left it. */
  get program(): Program {
    if (!this.ir) throw internalError(`${this.moduleRel}:${this.entry} has no IR: no parse stage produced one`);
    return this.ir;
  }

  set program(p: Program) {
    this.ir = p;
  }

  /** Whether a parse stage has produced IR yet (the interceptor prints and verifies only then). */
  get hasProgram(): boolean {
    return this.ir !== undefined;
  }

  /** Records what a stage produced. */
  provide<K extends ProductName>(name: K, product: StageProducts[K]): void {
    this.products[name] = product;
  }

  /** The product `name`; an internal error if no stage left it (a stage missing or skipped). */
  need<K extends ProductName>(name: K, by: string): StageProducts[K] {
    const p = this.products[name];
    if (p === undefined) throw internalError(`${by} needs the '${name}' product of ${this.moduleRel}:${this.entry}, but no stage left it`);
    return p;
  }

  /** The entry's cache transaction; an internal error in a build that caches nothing (python mode). */
  needCache(by: string): EntryTransaction {
    if (!this.cache) throw internalError(`${by} of ${this.moduleRel}:${this.entry} needs the cache, but this build caches nothing (a python-mode build reached it)`);
    return this.cache;
  }

  /** The product `name` if a stage left it (for cleanup after a failure, never to skip work). */
  peek<K extends ProductName>(name: K): StageProducts[K] | undefined {
    return this.products[name];
  }
}
