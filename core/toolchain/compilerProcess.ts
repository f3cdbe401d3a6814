import type { Result } from 'execa';
import { compilerTimedOut } from '../diagnostics/toolchainErrors.js';

/** The default compile timeout: generous, so only a hung compiler reaches it. */
export const DEFAULT_COMPILE_TIMEOUT_S = 30 * 60;

/** Process groups of the compilers running now, killed if orch is interrupted. */
const running = new Set<number>();
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** Compiler runs in progress: the signal handlers are installed while there is one. */
let active = 0;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is already gone
  }
}

function onSignal(signal: NodeJS.Signals): void {
  for (const pid of running) killGroup(pid);
  running.clear();
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  active = 0;
  // die of the signal as if no handler were installed (unless someone else handles it)
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/**
 * Runs a compiler in its own process group, so a timeout or an interrupt of orch kills it
 * and everything it started (cc1plus, ld, nvcc's cicc and ptxas) instead of leaving them
 * to hold the entry lock's build alive or run on as orphans.
 */
export async function runCompiler(file: string, args: string[], opts: { cwd: string; timeoutS?: number; all?: boolean }): Promise<Result<{ encoding: 'utf8'; all: boolean; reject: false; stdin: 'ignore' }>> {
  const timeoutS = opts.timeoutS ?? DEFAULT_COMPILE_TIMEOUT_S;
  // imported when a build compiles, not at every start: a cache hit never needs it
  const { execa } = await import('execa');
  // The handlers go in before the spawn: execa starts the child, then sets it up for a
  // while (long on its first call); a signal in between would otherwise end orch at once
  // and leave the group running. Installed, it waits for this synchronous code, which
  // records the pid, so the handler finds it.
  if (active++ === 0) for (const s of SIGNALS) process.on(s, onSignal);
  const child = execa(file, args, { cwd: opts.cwd, reject: false, stdin: 'ignore', encoding: 'utf8', all: opts.all ?? false, detached: true });
  const pid = child.pid;
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  if (pid !== undefined) {
    running.add(pid);
    timer = setTimeout(() => {
      timedOut = true;
      killGroup(pid);
    }, timeoutS * 1000);
  }
  try {
    const result = await child;
    if (timedOut) {
      throw compilerTimedOut(file, timeoutS, String(result.all ?? result.stderr ?? ''));
    }
    return result as Result<{ encoding: 'utf8'; all: boolean; reject: false; stdin: 'ignore' }>;
  } finally {
    clearTimeout(timer);
    if (pid !== undefined) running.delete(pid);
    if (active > 0 && --active === 0) for (const s of SIGNALS) process.removeListener(s, onSignal);
  }
}
