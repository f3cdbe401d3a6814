import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fail } from '../diagnostics.js';

/**
 * A cross-process lock on one cache entry, so 8 ranks building the same program compile
 * it once: the others wait, then find the finished entry. `mkdir` is atomic on local and
 * network file systems. A lock whose owner died (same host, pid gone) or that is older
 * than `staleMs` (another host) is broken and taken over.
 */
export interface LockOwner {
  pid: number;
  host: string;
  time: number;
}

export class EntryLock {
  private held = false;

  constructor(
    readonly dir: string,
    readonly staleMs = 10 * 60 * 1000,
  ) {}

  get ownerFile(): string {
    return path.join(this.dir, 'owner.json');
  }

  /** Waits until the lock is ours. `onWait` is told once when another process holds it. */
  async acquire(onWait?: (owner: LockOwner | undefined) => void, timeoutMs = 60 * 60 * 1000): Promise<void> {
    const start = Date.now();
    let told = false;
    let delay = 20;
    for (;;) {
      try {
        mkdirSync(this.dir);
        writeFileSync(this.ownerFile, JSON.stringify({ pid: process.pid, host: os.hostname(), time: Date.now() } satisfies LockOwner));
        this.held = true;
        return;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST') {
          fail('E_CACHE_WRITE', `cannot lock cache entry ${path.dirname(this.dir)}: ${(e as Error).message}`, { hint: 'make the cache root writable, or point GT_CACHE_ROOT at a writable folder' });
        }
      }
      const owner = this.owner();
      if (this.isStale(owner)) {
        this.breakLock();
        continue;
      }
      if (!told) {
        onWait?.(owner);
        told = true;
      }
      if (Date.now() - start > timeoutMs) {
        fail('E_CACHE_LOCKED', `timed out waiting for the lock on ${path.dirname(this.dir)}`, { hint: `another orch process (pid ${owner?.pid} on ${owner?.host}) holds it; remove ${this.dir} if that process is gone` });
      }
      await sleep(delay);
      delay = Math.min(500, delay * 2);
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    rmSync(this.dir, { recursive: true, force: true });
  }

  owner(): LockOwner | undefined {
    try {
      return JSON.parse(readFileSync(this.ownerFile, 'utf8')) as LockOwner;
    } catch {
      return undefined;
    }
  }

  private isStale(owner: LockOwner | undefined): boolean {
    if (!owner) {
      // the owner may be between mkdir and writing owner.json: judge by the folder's age
      try {
        return Date.now() - statSync(this.dir).mtimeMs > 5000;
      } catch {
        return false;
      }
    }
    if (owner.host === os.hostname()) return !processAlive(owner.pid);
    return Date.now() - owner.time > this.staleMs;
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

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
