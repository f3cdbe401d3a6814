import type { Program } from '../../core/ir/types.js';
import type { ProgramSignature } from '../../core/runtime/NativeLibrary.js';
import { programHeader, programSignature, programSymbol } from './abi.js';
import { Codegen, type CppOptions } from './Codegen.js';
import { CpuLoops } from './cpuLoops.js';

export type { CppOptions } from './Codegen.js';

/**
 * C++ backend for the loop-nest IR (a `Program` after library expansion): the shared host
 * shell and expressions with the CPU's loops (cpuLoops.ts).
 *
 * The generated library follows the ABI documented in the generated header (abi.ts, and
 * native/orch_runtime.h): `<sym>_init`, `<sym>_run(handle, args)`, `<sym>_last_error`,
 * `<sym>_exit`, `<sym>_signature`. Semantics match the orch interpreter: Python/numpy
 * arithmetic comes from orch_runtime.h, bounds are checked before every launch with
 * `launchAccessBounds`, and `run` reports errors through the handle instead of crashing.
 */

interface CppOutput {
  source: string;
  header: string;
  /** Prefix of the exported functions: `orch_<sanitized program name>`. */
  symbol: string;
  signature: ProgramSignature;
}

export function generateCpp(program: Program, opts: CppOptions): CppOutput {
  const symbol = programSymbol(program.name);
  const signature = programSignature(program);
  const cg = new Codegen(program, opts, symbol, (c) => new CpuLoops(c));
  return { source: cg.shell.source(signature), header: programHeader(program, symbol, signature), symbol, signature };
}
