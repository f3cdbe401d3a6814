import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { BuildCache, type HistoryRecord } from './BuildCache.js';

/** One built variant of an entry: `<entry root>/<key>/`. */
export interface VariantUsage {
  key: string;
  dir: string;
  bytes: number;
  /** When it was last used (a hit touches its folder, BuildCache.record), ms since the epoch. */
  lastUseMs: number;
}

/** One entry (module and entry name) of one code path, with its variants and history counts. */
export interface EntryUsage {
  codepath: string;
  /** `<module path without .py>/<entry>`, as `orch info` names it. */
  entry: string;
  /** The module part of `entry`. */
  module: string;
  root: string;
  variants: VariantUsage[];
  /** Everything under the entry root: variants, manifests, history. */
  bytes: number;
  hits: number;
  misses: number;
  errors: number;
}

/** What the cache root holds: every code path's entries (for `orch info --stats` and eviction). */
export interface CacheUsage {
  root: string;
  entries: EntryUsage[];
  /** Everything under the `.gt_cache_*` folders. */
  bytes: number;
}

const KEY = /^[0-9a-f]{64}$/;

/** The code paths with a cache folder under the root (`.gt_cache_<codepath>`). */
export function codepathsUnder(root: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names.flatMap((n) => /^\.gt_cache_([A-Za-z0-9_.-]+)$/.exec(n)?.[1] ?? []).sort();
}

/** Bytes of the regular files under a folder (links are not followed, and count their own size). */
export function folderBytes(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const n of names) {
    const f = path.join(dir, n);
    try {
      const st = lstatSync(f);
      total += st.isDirectory() ? folderBytes(f) : st.size;
    } catch {
      // removed while we looked (a concurrent build or clean)
    }
  }
  return total;
}

function count(history: HistoryRecord[], result: HistoryRecord['result']): number {
  return history.filter((h) => h.result === result).length;
}

/** Scans every code path under the cache root. Reads only folder listings, sizes and history. */
export function cacheUsage(root: string): CacheUsage {
  const entries: EntryUsage[] = [];
  let bytes = 0;
  for (const codepath of codepathsUnder(root)) {
    const cache = new BuildCache(root, codepath);
    bytes += folderBytes(cache.dir);
    for (const entryRoot of cache.entries()) {
      const entry = path.relative(cache.dir, entryRoot).split(path.sep).join('/');
      const variants: VariantUsage[] = [];
      for (const n of readdirSync(entryRoot).filter((x) => KEY.test(x))) {
        const dir = path.join(entryRoot, n);
        try {
          const st = lstatSync(dir);
          if (st.isDirectory()) variants.push({ key: n, dir, bytes: folderBytes(dir), lastUseMs: st.mtimeMs });
        } catch {
          // evicted while we looked
        }
      }
      const history = cache.history(entryRoot);
      entries.push({
        codepath,
        entry,
        module: entry.split('/').slice(0, -1).join('/'),
        root: entryRoot,
        variants: variants.sort((a, b) => b.lastUseMs - a.lastUseMs),
        bytes: folderBytes(entryRoot),
        hits: count(history, 'hit'),
        misses: count(history, 'miss'),
        errors: count(history, 'error'),
      });
    }
  }
  return { root, entries, bytes };
}
