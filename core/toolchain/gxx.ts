import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { askTool } from './askTool.js';
import { OrchError, OrchErrors, type Diagnostic } from '../diagnostics.js';
import { compilerSlots } from './compilerSlots.js';
import { takeOutput } from './takeOutput.js';
import { runCompiler } from './compilerProcess.js';
import { compilerFailed, compilerNotRunnable, compilerSaid, compilerVersionFailed, cxxNotFound, moreCompilerErrors } from '../diagnostics/toolchainErrors.js';

/**
 * g++ (or any GCC-compatible driver) as a library compiler.
 *
 * Diagnostics are parsed from GCC's `file:line:col: severity: message` lines. Because the
 * generated code carries `#line` directives, `file` is usually the user's .py, so errors
 * land on the statement that caused them; the full stderr is kept in `detail`.
 */

interface CompileOptions {
  compiler: string;
  flags: string[];
  /** Path of the .cpp to compile. */
  source: string;
  /** Path of the shared library to produce; written atomically (temp file + rename). */
  output: string;
  cwd?: string;
  includeDirs: string[];
  /** Put before the compiler (compiler.launcher: ccache, distcc, ...). */
  launcher?: string[];
  /** Seconds before a hung compiler is killed (E_TOOLCHAIN_TIMEOUT); default 30 min. */
  timeoutS?: number;
  /** Libraries to link, after the source (the linker drops libraries named before what needs them). */
  libs?: string[];
}

export interface CompileResult {
  warnings: Diagnostic[];
  stderr: string;
  /** The exact command run (compiler first), for logs and build info. */
  command: string[];
}

/** Flags the parser relies on and a shared library needs; appended when absent. */
const REQUIRED_FLAGS = ['-shared', '-fPIC', '-fdiagnostics-color=never'];

/** At most this many error diagnostics are reported; the rest stay in `detail`. */
const MAX_ERRORS = 20;

export async function compileSharedLibrary(opts: CompileOptions): Promise<CompileResult> {
  const cwd = opts.cwd ?? process.cwd();
  const output = isAbsolute(opts.output) ? opts.output : resolve(cwd, opts.output);
  // g++ writes its output in place; building next to it and renaming means a failed or
  // concurrent build never leaves a half-written library under the final name.
  const partial = `${output}.${process.pid}-${randomBytes(4).toString('hex')}.partial`;
  const flags = [...opts.flags, ...REQUIRED_FLAGS.filter((f) => !opts.flags.includes(f))];
  const includes = opts.includeDirs.map((d) => `-I${d}`);
  const libs = opts.libs ?? [];
  // A launcher (ccache, distcc) caches or ships compilations, never a compile-and-link in
  // one call: with one, compile to an object through it, then link locally, as CMake does.
  const object = `${partial}.o`;
  const steps = opts.launcher?.length
    ? [
        // the source named relative to the build folder: a caching launcher then sees the
        // same preprocessed text whichever staging folder the build ran in
        [...opts.launcher, opts.compiler, ...flags.filter((f) => f !== '-shared'), ...includes, '-c', relativeSource(cwd, opts.source), '-o', object],
        [opts.compiler, ...flags, object, ...libs, '-o', partial],
      ]
    : [[opts.compiler, ...flags, ...includes, opts.source, ...libs, '-o', partial]];
  let stderr = '';
  let diagnostics: Diagnostic[] = [];
  try {
    for (const command of steps) {
      const result = await compilerSlots.run(() => runCompiler(command[0], command.slice(1), { cwd, timeoutS: opts.timeoutS }));
      stderr += String(result.stderr ?? '');
      if (result.failed && !result.exitCode) {
        await rm(partial, { force: true });
        if (result.code === 'ENOENT') toolchainMissing(command[0]);
        throw compilerNotRunnable(command[0], result.shortMessage ?? result.message, stderr);
      }
      diagnostics = parseGccDiagnostics(stderr);
      if (result.exitCode !== 0) {
        await rm(partial, { force: true });
        throwCompileErrors(opts.compiler, stderr, diagnostics, result.exitCode);
      }
    }
  } finally {
    await rm(object, { force: true });
  }
  const command = steps.flat();
  await takeOutput(partial, output, opts.compiler);
  const warnings = diagnostics.filter((d) => d.severity === 'warning').map((d) => new OrchError({ ...d, detail: stderr }).diagnostic);
  return { warnings, stderr, command };
}

function relativeSource(cwd: string, source: string): string {
  const rel = relative(cwd, resolve(cwd, source));
  return rel.startsWith('..') || isAbsolute(rel) ? source : rel;
}

/** Throws the errors of a failed compiler run (each with the whole stderr as detail). */
export function throwCompileErrors(compiler: string, stderr: string, diagnostics: Diagnostic[], exitCode: number | undefined): never {
  let errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) {
    // Driver, linker and crash errors have no file:line:col (`cc1plus: fatal error: x.h:
    // No such file`): report the first line that says error, else the last line.
    const lines = stderr.trim().split('\n').filter(Boolean);
    const said = lines.find((l) => /\berror\b/i.test(l)) ?? lines.pop() ?? `exit code ${exitCode}`;
    errors = [compilerFailed(compiler, said)];
  }
  const shown = errors.slice(0, MAX_ERRORS).map((d) => new OrchError({ ...d, detail: stderr }).diagnostic);
  if (errors.length > MAX_ERRORS) {
    shown.push(moreCompilerErrors(errors.length - MAX_ERRORS, stderr));
  }
  if (shown.length === 1) throw new OrchError(shown[0]);
  throw new OrchErrors(shown);
}

/** `<compiler> --version`, first line: part of the cache key. */
export async function compilerIdentity(compiler: string): Promise<string> {
  const result = await askTool(compiler, ['--version']);
  if (result.code === 'ENOENT') toolchainMissing(compiler);
  if (result.failed) {
    throw compilerVersionFailed(compiler, result.shortMessage, String(result.stderr ?? ''));
  }
  return String(result.stdout).split('\n')[0].trim();
}

function toolchainMissing(compiler: string): never {
  throw cxxNotFound(compiler);
}

const GCC_LINE = /^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning): (.*)$/;
const CXX_SOURCE = /\.(c|cc|cpp|cxx|h|hh|hpp|cu|cuh)$/i;

/**
 * Errors and warnings from GCC-style stderr, each with its location. Columns only mean
 * something in C++ files; in a `#line`-mapped .py they index generated code, so the
 * statement's line is kept and the column set to 1.
 */
export function parseGccDiagnostics(stderr: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const raw of stderr.split(/\r?\n/)) {
    const m = GCC_LINE.exec(raw);
    if (!m) continue;
    const [, file, line, col, severity, message] = m;
    const inCxx = CXX_SOURCE.test(file);
    const isError = severity !== 'warning';
    out.push(
      compilerSaid(isError, inCxx ? message : `C++ compiler: ${message}`, {
        loc: { file, line: Number(line), col: inCxx && col ? Number(col) : 1 },
        hint: inCxx ? undefined : 'this statement produced C++ the compiler rejected; see the compiler output with --verbose',
      }),
    );
  }
  return out;
}
