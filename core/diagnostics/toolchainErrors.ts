import { OrchError, type Diagnostic } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import { diagnostic } from './codes.js';

// The errors of the toolchain and the cache: one factory per distinct error (after Rollup's src/utils/logs.ts),
// grouped under the code it reports, in the order of CODES in codes.ts.

// E_TOOLCHAIN: the C++ or CUDA compiler is missing or does not run

export function mpiShowmeFailed(wrapper: string, what: string, problem: string): OrchError {
  return new OrchError(diagnostic('E_TOOLCHAIN', `MPI is enabled (compiler.mpi), but '${wrapper} --showme:${what}' failed: ${problem}`, { hint: 'install OpenMPI (apt-get install openmpi-bin libopenmpi-dev), or set compiler.mpi to false for a build without MPI' }));
}

export function compilerNotRunnable(command: string, problem: string | undefined, detail: string): OrchError {
  return new OrchError(diagnostic('E_TOOLCHAIN', `could not run ${command}: ${problem}`, { detail }));
}

export function compilerVersionFailed(compiler: string, shortMessage: string, detail: string): OrchError {
  return new OrchError(diagnostic('E_TOOLCHAIN', `${compiler} --version failed: ${shortMessage}`, { detail }));
}

export function cxxNotFound(compiler: string): OrchError {
  return new OrchError(diagnostic('E_TOOLCHAIN', `C++ compiler '${compiler}' was not found`, { hint: 'install g++ (e.g. apt-get install g++), or set the compiler in orch.config.ts / the preset to one on PATH' }));
}

export function nvccNotFound(nvcc: string): OrchError {
  return new OrchError(diagnostic('E_TOOLCHAIN', `CUDA compiler '${nvcc}' was not found`, { hint: 'install the CUDA toolkit and put nvcc on PATH (e.g. /usr/local/cuda/bin), or set compiler.cxx in orch.config.ts to its full path' }));
}

// E_TOOLCHAIN_TIMEOUT: a compiler that did not finish within compiler.timeoutS and was stopped

export function compilerTimedOut(file: string, timeoutS: number, detail: string): OrchError {
  return new OrchError(diagnostic('E_TOOLCHAIN_TIMEOUT', `${file} did not finish within ${timeoutS} s and was stopped`, { hint: 'a compiler that hangs (a stuck license server, a full /tmp, an NFS stall) is killed after compiler.timeoutS seconds: raise it in orch.config.ts or the preset if this build is just slow', detail }));
}

// E_TOOLCHAIN_OUTPUT: the compiler exited 0 but wrote no library, or one that does not load (nothing is cached)

export function compilerWroteNoLibrary(compiler: string): OrchError {
  return new OrchError(diagnostic('E_TOOLCHAIN_OUTPUT', `${compiler} exited 0 but wrote no library`, { hint: `check the compiler '${compiler}' (and its flags) set in the preset or orch.config.ts` }));
}

export function libraryDoesNotLoad(compiler: string, why: string): OrchError {
  return new OrchError(diagnostic('E_TOOLCHAIN_OUTPUT', `${compiler} exited 0 but the library it wrote does not load: ${why}`, { hint: `check the compiler '${compiler}' (and its flags) set in the preset or orch.config.ts; nothing was cached` }));
}

// E_CACHE_LOCKED: timed out waiting for another orch process building the same entry

export function cacheLockTimeout(dirname: string, owner: string, dir: string): OrchError {
  return new OrchError(diagnostic('E_CACHE_LOCKED', `timed out waiting for the lock on ${dirname}`, { hint: `${owner} holds it and keeps it alive; remove ${dir} if that process is gone` }));
}

// E_CACHE_ROOT: the cache root (GT_CACHE_ROOT or cacheRoot) is a file or otherwise not a folder

export function cacheRootNotFolder(cacheRoot: string, from: string, kind: string): OrchError {
  return new OrchError(diagnostic('E_CACHE_ROOT', `the cache root ${cacheRoot} (${from}) is ${kind}, not a folder`, { hint: 'point GT_CACHE_ROOT (or cacheRoot in orch.config.ts) at a folder, or remove what is in the way' }));
}

// E_CACHE_WRITE: the cache cannot be written

export function cannotLockCache(dirname: string, message: string): OrchError {
  return new OrchError(diagnostic('E_CACHE_WRITE', `cannot lock cache entry ${dirname}: ${message}`, { hint: 'make the cache root writable, or point GT_CACHE_ROOT at a writable folder' }));
}

export function cacheFileUnwritable(where: string, problem: string, hint: string): OrchError {
  return new OrchError(diagnostic('E_CACHE_WRITE', `cannot write ${where}: ${problem}`, { hint }));
}

export function cannotCreateCache(root: string, message: string): OrchError {
  return new OrchError(diagnostic('E_CACHE_WRITE', `cannot create the cache folder ${root}: ${message}`, { hint: 'make the cache root writable or point GT_CACHE_ROOT elsewhere' }));
}

export function cannotWriteCache(root: string, message: string): OrchError {
  return new OrchError(diagnostic('E_CACHE_WRITE', `cannot write to the cache folder ${root}: ${message}`, { hint: 'make the cache root writable or point GT_CACHE_ROOT elsewhere' }));
}

// E_CACHE_CORRUPT: an entry whose call interface is missing

export function entryWithoutInterface(key: string | undefined): OrchError {
  return new OrchError(diagnostic('E_CACHE_CORRUPT', `cache entry ${key} has no call interface`, { hint: 'run orch clean and build again' }));
}

// E_CXX: a failed compiler run; these are diagnostics, which the caller gives the compiler output as detail

/** Driver, linker and crash errors name no file:line:col: `said` is the line of the output that says error. */
export function compilerFailed(compiler: string, said: string): Diagnostic {
  return diagnostic('E_CXX', `${compiler} failed: ${said}`, { hint: 'see the full compiler output with --verbose' });
}

export function moreCompilerErrors(count: number, stderr: string): Diagnostic {
  return diagnostic('E_CXX', `${count} more compiler errors (see --verbose)`, { detail: stderr });
}

/** E_CXX or W_CXX: one error or warning line of the compiler's output. */
export function compilerSaid(isError: boolean, message: string, at?: { loc: SourceLoc; hint: string | undefined }): Diagnostic {
  return { code: isError ? 'E_CXX' : 'W_CXX', severity: isError ? 'error' : 'warning', message, ...at };
}
