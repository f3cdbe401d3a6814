import { rename } from 'node:fs/promises';
import { compilerWroteNoLibrary } from '../diagnostics/toolchainErrors.js';

/** Moves the compiler's partial output into place; a compiler that exited 0 without writing it is a toolchain error. */
export async function takeOutput(partial: string, output: string, compiler: string): Promise<void> {
  try {
    await rename(partial, output);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    throw compilerWroteNoLibrary(compiler);
  }
}
