import { randomBytes } from 'node:crypto';
import { existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { OrchError } from '../diagnostics.js';
import { cacheUsage } from './cacheUsage.js';
import { EntryLock } from './EntryLock.js';

/** What `orch clean --older-than/--max-size` (and `cache.maxSize`) removes. */
export interface EvictionPolicy {
  /** Remove variants not used for this long (ms). */
  olderThanMs?: number;
  /** Then remove the least recently used variants until the cache holds at most this (bytes). */
  maxBytes?: number;
  /** Only say what would go. */
  dryRun?: boolean;
  now?: number;
}

export interface EvictedVariant {
  codepath: string;
  entry: string;
  key: string;
  bytes: number;
  lastUseMs: number;
  why: 'age' | 'size';
}

export interface EvictionResult {
  removed: EvictedVariant[];
  freedBytes: number;
  bytesBefore: number;
  bytesAfter: number;
  /** Entries left alone because a build held their lock. */
  locked: string[];
}

/**
 * LRU eviction of built variants, like ccache's cleanup: by last use (a hit touches the
 * variant's folder), oldest first. A variant goes only while its entry's lock is ours, so
 * an entry being built is never touched; it is renamed away before it is deleted, so a
 * concurrent lookup sees it whole or not at all (a lookup then misses and rebuilds).
 */
export async function evict(root: string, policy: EvictionPolicy): Promise<EvictionResult> {
  const now = policy.now ?? Date.now();
  const usage = cacheUsage(root);
  const candidates = usage.entries.flatMap((e) => e.variants.map((v) => ({ e, v }))).sort((a, b) => a.v.lastUseMs - b.v.lastUseMs);
  let total = usage.bytes;
  const removed: EvictedVariant[] = [];
  const locked = new Set<string>();
  for (const { e, v } of candidates) {
    const old = policy.olderThanMs !== undefined && now - v.lastUseMs > policy.olderThanMs;
    const over = policy.maxBytes !== undefined && total > policy.maxBytes;
    // oldest first: once a variant is neither too old nor needed to fit, no later one is
    if (!old && !over) break;
    const name = `${e.codepath}:${e.entry}`;
    if (locked.has(name)) continue;
    if (!policy.dryRun) {
      const lock = new EntryLock(path.join(e.root, '.lock'));
      try {
        await lock.acquire(undefined, 0);
      } catch (err) {
        if (err instanceof OrchError && err.diagnostic.code === 'E_CACHE_LOCKED') {
          locked.add(name);
          continue;
        }
        throw err;
      }
      try {
        if (!existsSync(v.dir)) continue;
        const grave = path.join(e.root, `.evicted-${process.pid}-${randomBytes(4).toString('hex')}`);
        renameSync(v.dir, grave);
        rmSync(grave, { recursive: true, force: true });
      } finally {
        lock.release();
      }
    }
    total -= v.bytes;
    removed.push({ codepath: e.codepath, entry: e.entry, key: v.key, bytes: v.bytes, lastUseMs: v.lastUseMs, why: old ? 'age' : 'size' });
  }
  const freedBytes = removed.reduce((a, r) => a + r.bytes, 0);
  return { removed, freedBytes, bytesBefore: usage.bytes, bytesAfter: usage.bytes - freedBytes, locked: [...locked] };
}
