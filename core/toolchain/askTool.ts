import { execFile } from 'node:child_process';

/** What a short query of a tool (`g++ --version`, `mpicxx --showme:link`) answered. */
export interface ToolAnswer {
  stdout: string;
  stderr: string;
  /** It could not start, exited nonzero, died of a signal or ran past the timeout. */
  failed: boolean;
  /** The spawn error's code ('ENOENT' when the tool is not on PATH). */
  code?: string;
  /** Why it failed, in execa's words (`Command failed with exit code 1: g++ --version`). */
  shortMessage: string;
}

/**
 * Runs a tool for a one-line answer. Every build asks the compiler its version (part of the
 * cache key), so this uses node's own execFile: execa, kept for the compiler runs
 * themselves, is a hundred modules that a cache hit would otherwise load at each start.
 */
export function askTool(file: string, args: readonly string[], opts: { timeoutMs?: number } = {}): Promise<ToolAnswer> {
  const command = [file, ...args].join(' ');
  // as execa gives them: without the final newline
  const strip = (s: unknown) => String(s ?? '').replace(/\r?\n$/, '');
  return new Promise((resolve) => {
    const child = execFile(file, args, { encoding: 'utf8', timeout: opts.timeoutMs ?? 0, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve({ stdout: strip(stdout), stderr: strip(stderr), failed: false, shortMessage: '' });
      const e = error as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null; code?: string | number | null };
      const spawnCode = typeof e.code === 'string' ? e.code : undefined;
      const why = spawnCode ? spawnCode : e.killed && opts.timeoutMs ? `timed out after ${opts.timeoutMs} milliseconds` : e.signal ? `was killed with ${e.signal}` : `exit code ${e.code}`;
      const shortMessage = `Command ${why.startsWith('was') || why.startsWith('timed') ? why : `failed with ${why}`}: ${command}`;
      resolve({ stdout: strip(stdout), stderr: strip(stderr), failed: true, ...(spawnCode ? { code: spawnCode } : {}), shortMessage });
    });
    child.stdin?.end();
  });
}
