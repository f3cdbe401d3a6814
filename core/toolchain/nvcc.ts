import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { askTool } from './askTool.js';
import { type Diagnostic } from '../diagnostics.js';
import { parseGccDiagnostics, throwCompileErrors, type CompileResult } from './gxx.js';
import { takeOutput } from './takeOutput.js';
import { runCompiler } from './compilerProcess.js';
import { compilerNotRunnable, compilerSaid, compilerVersionFailed, nvccNotFound } from '../diagnostics/toolchainErrors.js';

/**
 * nvcc as a library compiler: the host `.cpp` and the kernels' `.cu` of one program go
 * through one nvcc command into one shared library, with the CUDA runtime linked in
 * statically (the library needs only the driver at run time, and no two libraries share
 * runtime state through a global libcudart).
 *
 * nvcc reports in two dialects: its C++ front end (the `.cu`) writes `file(line): error:
 * message`, the host compiler (the `.cpp`, and the `.cu`'s host part) writes GCC's
 * `file:line:col: error: message`. Both are parsed; because the generated code carries
 * `#line` directives, `file` is usually the user's .py.
 */

interface NvccOptions {
  nvcc: string;
  /** Put before nvcc (compiler.launcher: ccache, distcc, ...). */
  launcher?: string[];
  flags: string[];
  /** Resolved GPU architectures, comma-separated: 'sm_90', 'sm_80,sm_90'. */
  arch: string;
  /** The host .cpp and the .cu, compiled and linked together. */
  sources: string[];
  /** Shared library to produce; written atomically (temp file + rename). */
  output: string;
  cwd?: string;
  includeDirs: string[];
  /** Seconds before a hung nvcc is killed (E_TOOLCHAIN_TIMEOUT); default 30 min. */
  timeoutS?: number;
}

/**
 * Flags the parsers and a loadable library rely on, appended when absent. Hidden
 * visibility keeps the kernel launchers (and everything but the C ABI) private, so two
 * program libraries in one process never bind to each other's symbols.
 */
const REQUIRED_FLAGS = ['-shared', '-Xcompiler=-fPIC', '-Xcompiler=-fvisibility=hidden', '-Xcompiler=-fdiagnostics-color=never', '--cudart=static'];

/** nvcc flags for the architectures: SASS for each, and PTX of the newest so newer GPUs can JIT it. */
export function archFlags(arch: string): string[] {
  const list = arch.split(',').map((a) => a.trim()).filter(Boolean);
  if (list.length === 1) return [`-arch=${list[0]}`];
  const num = (a: string) => a.replace(/^sm_/, '');
  const newest = [...list].sort((a, b) => parseInt(num(a), 10) - parseInt(num(b), 10)).pop()!;
  return [...list.map((a) => `-gencode=arch=compute_${num(a)},code=${a}`), `-gencode=arch=compute_${num(newest)},code=compute_${num(newest)}`];
}

export async function compileCudaLibrary(opts: NvccOptions): Promise<CompileResult> {
  const cwd = opts.cwd ?? process.cwd();
  const output = isAbsolute(opts.output) ? opts.output : resolve(cwd, opts.output);
  const partial = `${output}.${process.pid}-${randomBytes(4).toString('hex')}.partial`;
  const flags = [...opts.flags, ...REQUIRED_FLAGS.filter((f) => !opts.flags.includes(f)), ...archFlags(opts.arch)];
  const args = [...flags, ...opts.includeDirs.map((d) => `-I${d}`), ...opts.sources, '-o', partial];
  const command = [...(opts.launcher ?? []), opts.nvcc, ...args];

  const result = await runCompiler(command[0], command.slice(1), { cwd, timeoutS: opts.timeoutS, all: true });
  // nvcc's front end writes diagnostics to stdout on some versions; read both.
  const stderr = String(result.all ?? result.stderr ?? '');
  if (result.failed && !result.exitCode) {
    await rm(partial, { force: true });
    if (result.code === 'ENOENT') nvccMissing(command[0]);
    throw compilerNotRunnable(opts.nvcc, result.shortMessage ?? result.message, stderr);
  }
  const diagnostics = parseNvccDiagnostics(stderr);
  if (result.exitCode !== 0) {
    await rm(partial, { force: true });
    throwCompileErrors(opts.nvcc, stderr, diagnostics, result.exitCode);
  }
  await takeOutput(partial, output, opts.nvcc);
  return { warnings: diagnostics.filter((d) => d.severity === 'warning'), stderr, command };
}

/**
 * What identifies the toolchain for the cache key: nvcc's release and build lines, and
 * the host compiler's version (nvcc compiles host code with it).
 */
export async function nvccIdentity(nvcc: string, flags: readonly string[]): Promise<string> {
  const result = await askTool(nvcc, ['--version']);
  if (result.code === 'ENOENT') nvccMissing(nvcc);
  if (result.failed) throw compilerVersionFailed(nvcc, result.shortMessage, String(result.stderr ?? ''));
  const lines = String(result.stdout).split('\n').map((l) => l.trim()).filter(Boolean);
  const nvccId = [lines.find((l) => /release/i.test(l)) ?? lines[0], lines.find((l) => /^Build /.test(l))].filter(Boolean).join('; ');
  const host = hostCompiler(flags);
  const hostResult = await askTool(host, ['--version']);
  const hostId = hostResult.failed ? `${host} unavailable` : String(hostResult.stdout).split('\n')[0].trim();
  return `${nvccId}; host ${hostId}`;
}

/** The host compiler nvcc uses: `-ccbin`/`--compiler-bindir` from the flags, else g++. */
function hostCompiler(flags: readonly string[]): string {
  for (let n = 0; n < flags.length; n++) {
    const f = flags[n];
    const eq = /^(?:-ccbin|--compiler-bindir)=(.+)$/.exec(f);
    if (eq) return eq[1];
    if ((f === '-ccbin' || f === '--compiler-bindir') && flags[n + 1]) return flags[n + 1];
  }
  return 'g++';
}

function nvccMissing(nvcc: string): never {
  throw nvccNotFound(nvcc);
}

const EDG_LINE = /^(.+?)\((\d+)\): (catastrophic error|error|warning)(?: #[\w-]+)?: (.*)$/;
const TOOL_LINE = /^(ptxas|nvlink|fatbinary)\s*(error|fatal|warning)\s*: (.*)$/;
const CXX_SOURCE = /\.(c|cc|cpp|cxx|h|hh|hpp|cu|cuh)$/i;

/**
 * nvcc's diagnostics: its front end's `file(line): error: ...`, ptxas/nvlink lines, and
 * the host compiler's GCC-style lines. In a `#line`-mapped .py the column means nothing,
 * so it is 1 there, as for g++.
 */
export function parseNvccDiagnostics(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const edg = EDG_LINE.exec(raw);
    if (edg) {
      const [, file, line, severity, message] = edg;
      const inCxx = CXX_SOURCE.test(file);
      const isError = severity !== 'warning';
      out.push(
        compilerSaid(isError, inCxx ? message : `CUDA compiler: ${message}`, {
          loc: { file, line: Number(line), col: 1 },
          hint: inCxx ? undefined : 'this statement produced CUDA code nvcc rejected; see the compiler output with --verbose',
        }),
      );
      continue;
    }
    const tool = TOOL_LINE.exec(raw);
    if (tool) {
      const [, name, severity, message] = tool;
      const isError = severity !== 'warning';
      out.push(compilerSaid(isError, `${name}: ${message}`));
    }
  }
  return [...out, ...parseGccDiagnostics(text)];
}
