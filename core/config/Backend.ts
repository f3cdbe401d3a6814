import type { Program } from '../ir/types.js';
import type { ProgramSignature } from '../runtime/NativeLibrary.js';
import type { CompileResult } from '../toolchain/gxx.js';
import type { ScheduleKnob } from './ScheduleKnob.js';
import type { CodegenOptions } from './types.js';

/** What a backend generated for one program, as text; the codegen stage writes it. */
export interface GeneratedSources {
  /** Prefix of the library's exported functions. */
  symbol: string;
  signature: ProgramSignature;
  /** The host source, `<symbol>.cpp`. */
  source: string;
  /** The public header, `<symbol>.h`. */
  header: string;
  /** More files the library is built from (CUDA: the kernels' .cu and their launchers' header). */
  extraFiles: { name: string; text: string; compiled: boolean }[];
}

/** One compile of a program's library (paths are in the staging folder). */
export interface CompileRequest {
  cxx: string;
  flags: string[];
  /** Libraries to link (MPI), after the sources. */
  libs: string[];
  launcher?: string[];
  /** Kill the compiler after this many seconds (compiler.timeoutS). */
  timeoutS?: number;
  /** The host source, and the extra files marked `compiled`. */
  sources: string[];
  output: string;
  cwd: string;
  includeDirs: string[];
  /** The GPU architecture the cache key was computed with (Backend.resolveArch), if any. */
  arch?: string;
}

/**
 * A backend: how programs become a native library for one kind of hardware (generated
 * sources, the toolchain that compiles them, where arrays live). A preset names its
 * backend (`Preset.backend`); the top layer hands the core the table of backends
 * (`Toolset.backends`), so no stage branches on the hardware itself.
 */
export interface Backend {
  /** The name presets give. */
  readonly name: string;
  /** Where the library's arrays live (the memory report says so). */
  readonly storage: 'host' | 'device';
  /** Temporaries and transients live in the handle's grow-only arenas, laid out by the pooling stage; otherwise the library allocates them itself. */
  readonly arenas: boolean;
  /** What the memory report says of each role's arrays, for a backend without arenas. */
  readonly memoryNotes?: { arg: string; temporary: string; transient: string };
  /** Tiled launches run tile by tile, tile-local arrays in each thread's scratch (else they are ordinary transients). */
  readonly tiles: boolean;
  /** The schedule options `orch tune` searches (core/tune/Tuner.ts); none: nothing to tune. */
  readonly scheduleKnobs?: readonly ScheduleKnob[];
  /** The toolchain's identity, part of the cache key. */
  toolchainIdentity(cxx: string, flags: readonly string[]): Promise<string>;
  /** Backends that compile for a GPU generation: the one a build targets (part of the cache key). */
  resolveArch?(setting: string | undefined): Promise<string>;
  generate(program: Program, options: CodegenOptions): GeneratedSources;
  compile(request: CompileRequest): Promise<CompileResult>;
}

/** The backend a preset names; a name no backend has is a bug in the toolset. */
export function backendNamed(backends: Record<string, Backend>, name: string, preset: string): Backend {
  const b = backends[name];
  if (!b) throw new Error(`preset '${preset}' names backend '${name}', which is not one of the toolset's (${Object.keys(backends).join(', ')})`);
  return b;
}
