import { mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { cacheLockTimeout, cannotLockCache } from '../diagnostics/toolchainErrors.js';

/**
 * A cross-process lock on one cache entry, so 8 ranks building the same program compile
 * it once: the others wait, then find the finished entry. `mkdir` is atomic on local and
 * network file systems.
 *
 * The holder refreshes the lock folder's mtime every `heartbeatMs` (a heartbeat). A waiter
 * breaks the lock when its holder is gone: on this host, a pid that is not running or is
 * now another process (its start time differs); anywhere, a heartbeat missed for
 * `staleMs` as the waiter's own clock measures it, so a wrong clock on another host, a
 * future mtime, or a missing or garbled owner file cannot keep a lock alive.
 * (proper-lockfile judges staleness by comparing the mtime with the local clock, which is
 * exactly what a clock running ahead defeats.)
 */
const OwnerSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string().min(1).max(255),
  /** When the lock was taken (ms since the epoch, the owner's clock). */
  time: z.number().finite(),
  /** The owner's process start time (/proc/<pid>/stat, clock ticks since boot), so a reused pid is not mistaken for it. */
  start: z.string().optional(),
});
export type LockOwner = z.infer<typeof OwnerSchema>;

export class EntryLock {
  private held = false;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    readonly dir: string,
    readonly staleMs = 30_000,
    readonly heartbeatMs = 2_000,
  ) {}

  get ownerFile(): string {
    return path.join(this.dir, 'owner.json');
  }

  /** Waits until the lock is ours. `onWait` is told once when another process holds it. */
  async acquire(onWait?: (owner: LockOwner | undefined, since: Date | undefined) => void, timeoutMs = 60 * 60 * 1000): Promise<void> {
    const start = Date.now();
    let told = false;
    let delay = 20;
    // the last heartbeat seen, and when (by our clock) it was first seen
    let beat: { mtimeMs: number; seenAt: number } | undefined;
    for (;;) {
      try {
        mkdirSync(this.dir);
        const owner: LockOwner = { pid: process.pid, host: os.hostname(), time: Date.now(), ...(startTime(process.pid) ? { start: startTime(process.pid) } : {}) };
        writeFileSync(this.ownerFile, JSON.stringify(owner));
        this.held = true;
        this.heartbeat = setInterval(() => this.beat(), this.heartbeatMs);
        this.heartbeat.unref();
        return;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST') {
          throw cannotLockCache(path.dirname(this.dir), (e as Error).message);
        }
      }
      const owner = this.owner();
      const mtimeMs = lockMtime(this.dir);
      if (mtimeMs !== undefined && mtimeMs !== beat?.mtimeMs) beat = { mtimeMs, seenAt: Date.now() };
      const verdict = this.judgeOwner(owner);
      if (mtimeMs !== undefined && (verdict === 'gone' || (verdict === 'unknown' && Date.now() - beat!.seenAt > this.staleMs))) {
        this.breakLock();
        beat = undefined;
        continue;
      }
      if (!told && mtimeMs !== undefined) {
        onWait?.(owner, owner ? new Date(owner.time) : new Date(mtimeMs));
        told = true;
      }
      if (Date.now() - start > timeoutMs) {
        throw cacheLockTimeout(path.dirname(this.dir), describeOwner(owner), this.dir);
      }
      await sleep(delay);
      delay = Math.min(500, delay * 2);
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    clearInterval(this.heartbeat);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The lock's owner, if its owner file is whole and well-formed. */
  owner(): LockOwner | undefined {
    try {
      const r = OwnerSchema.safeParse(JSON.parse(readFileSync(this.ownerFile, 'utf8')));
      return r.success ? r.data : undefined;
    } catch {
      return undefined;
    }
  }

  private beat(): void {
    const now = new Date();
    try {
      utimesSync(this.dir, now, now);
    } catch {
      // the lock was broken by a waiter that judged us gone; the commit's rename still decides
    }
  }

  /**
   * `gone`: an owner on this host that provably stopped (no such pid, or the pid is now a
   * process started at another time); `alive`: that very process is running (a long
   * synchronous step may delay its heartbeat); `unknown`: judged by its heartbeat.
   */
  private judgeOwner(owner: LockOwner | undefined): 'gone' | 'alive' | 'unknown' {
    if (!owner || owner.host !== os.hostname()) return 'unknown';
    if (!processAlive(owner.pid)) return 'gone';
    const now = startTime(owner.pid);
    if (owner.start === undefined || now === undefined) return 'unknown';
    return now === owner.start ? 'alive' : 'gone';
  }

  private breakLock(): void {
    // rename first so two processes breaking the same stale lock cannot both succeed
    const grave = `${this.dir}.stale-${process.pid}-${Date.now()}`;
    try {
      renameSync(this.dir, grave);
      rmSync(grave, { recursive: true, force: true });
    } catch {
      // another process broke it first
    }
  }
}

/** Who holds a lock, in words for the waiting message. */
export function describeOwner(owner: LockOwner | undefined): string {
  return owner ? `pid ${owner.pid} on ${owner.host}` : 'a process that left no valid owner file';
}

function lockMtime(dir: string): number | undefined {
  try {
    return statSync(dir).mtimeMs;
  } catch {
    return undefined;
  }
}

/** A process's start time (clock ticks since boot) from /proc, where there is one. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name (which may hold spaces and parentheses); starttime is field 22
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
