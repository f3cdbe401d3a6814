import type { Launch } from '../../core/ir/types.js';
import type { CheckStmt } from '../../core/ir/debugChecks.js';
import type { ArrayDecl, HaloStmt, Tiling } from '../../core/ir/types.js';
import type { PointContext } from './Codegen.js';
import type { VariableKParts } from './ExprEmitter.js';

/**
 * How a backend indexes and launches the points of a launch (CPU loop nests under
 * OpenMP, CUDA kernels), and what it adds to the library shell around them. The host
 * shell (HostShell), point statements (PointEmitter) and expressions (ExprEmitter) are
 * shared by every backend and call these where backends differ.
 */
export interface LoopStrategy {
  /** The handle type `init` allocates and every entry point casts to. */
  readonly stateType: string;
  /** Includes after orch_runtime.h. */
  readonly includes: readonly string[];
  /** Whether tiled launches run tile by tile (else their tile-local arrays are ordinary transients). */
  readonly tilesLaunches: boolean;
  /** The RAII type that owns a temporary's or transient's zero-filled storage. */
  bufferType(a: ArrayDecl): string;
  /** Definitions in the library's anonymous namespace before `run_program`. */
  beforeRunProgram(): void;
  /** Definitions in the library's anonymous namespace after `run_program` (what its code generation collected). */
  afterRunProgram(): void;
  /** Lines of `run` after the handle and argument checks, before the program runs. */
  runPrelude(): void;
  /** Exports after `_signature` (`api` is the linkage and visibility prefix). */
  extraExports(api: string): void;
  /** Lines of `run_program` after the arguments are loaded and temporaries allocated. */
  checkArguments(): void;
  /** Before anything of launch `s` is emitted. */
  beginLaunch(s: Launch): void;
  /** After the launch's bounds checks, before its arrays are hoisted. */
  beginLoops(ctx: PointContext): void;
  /** The launch's loops; `tile` is its tiling when the backend runs it tile by tile. */
  loops(s: Launch, tile: Tiling | undefined, ctx: PointContext, where: string): void;
  /** After the launch's loops. */
  endLaunch(s: Launch, ctx: PointContext): void;
  /** A checked read at a variable K offset (an expression). */
  variableKRead(r: VariableKParts): string;
  /** A checked write of `value` (C++ of the array's storage type) at a variable K offset (a statement). */
  variableKWrite(r: VariableKParts, value: string): string;
  /** Whether a variable-K read failed (in this thread at least), so a `while` loop must end. */
  readonly variableKFailed: string;
  /** A statement that ends the run with `message` (a C string literal, a located error) once the loops end: a `while` loop past its bound. */
  pointFailure(message: string): string;
  /** A halo exchange of the program (between launches, on the host). */
  halo(s: HaloStmt): void;
  /** A debug check of the value just written. */
  check(s: CheckStmt, ctx: PointContext): void;
}
