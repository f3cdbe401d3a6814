import { readdirSync } from 'node:fs';
import path from 'node:path';
import { evict } from '../core/cache/eviction.js';
import { removeCacheFolder, REMOVING } from '../core/cache/removeCacheFolder.js';
import { formatBytes, parseAge, parseSize } from '../core/cache/quantities.js';
import { resolveConfig } from './toolset.js';
import { cacheRootExists } from './cacheRoot.js';

export interface CleanOptions {
  quiet?: boolean;
  json?: boolean;
  /** `7d`: remove variants not used for that long. */
  olderThan?: string;
  /** `500M`: then remove least recently used variants until the cache fits. */
  maxSize?: string;
  dryRun?: boolean;
}

/**
 * `orch clean`: without limits, removes every .gt_cache_<codepath> folder under the cache
 * root; with --older-than or --max-size, evicts old variants only (core/cache/eviction.ts).
 */
export async function cleanCommand(opts: CleanOptions): Promise<number> {
  const olderThanMs = opts.olderThan !== undefined ? parseAge(opts.olderThan) : undefined;
  const maxBytes = opts.maxSize !== undefined ? parseSize(opts.maxSize) : undefined;
  const config = await resolveConfig();
  const out = (t: string) => {
    if (!opts.quiet) process.stdout.write(`${t}\n`);
  };
  if (!cacheRootExists(config)) {
    if (opts.json) process.stdout.write(`${JSON.stringify({ removed_folders: 0, dry_run: !!opts.dryRun, missing_root: true })}\n`);
    else out(`nothing to clean: the cache root ${config.cacheRoot} does not exist`);
    return 0;
  }
  if (olderThanMs === undefined && maxBytes === undefined) {
    let n = 0;
    for (const name of readdirSync(config.cacheRoot)) {
      if (REMOVING.test(name) && !opts.dryRun) removeCacheFolder(path.join(config.cacheRoot, name));
      if (!/^\.gt_cache_[A-Za-z0-9_.-]+$/.test(name)) continue;
      if (!opts.dryRun) removeCacheFolder(path.join(config.cacheRoot, name));
      n++;
    }
    if (opts.json) process.stdout.write(`${JSON.stringify({ removed_folders: n, dry_run: !!opts.dryRun })}\n`);
    else out(`${opts.dryRun ? 'would remove' : 'removed'} ${n} cache folder(s) under ${config.cacheRoot}`);
    return 0;
  }
  const r = await evict(config.cacheRoot, { olderThanMs, maxBytes, dryRun: opts.dryRun });
  if (opts.json) {
    process.stdout.write(
      `${JSON.stringify({
        removed: r.removed.map((v) => ({ codepath: v.codepath, entry: v.entry, key: v.key, bytes: v.bytes, last_use: new Date(v.lastUseMs).toISOString(), why: v.why })),
        freed_bytes: r.freedBytes,
        bytes_before: r.bytesBefore,
        bytes_after: r.bytesAfter,
        locked: r.locked,
        dry_run: !!opts.dryRun,
      })}\n`,
    );
    return 0;
  }
  const verb = opts.dryRun ? 'would remove' : 'removed';
  for (const v of r.removed) {
    const why = v.why === 'age' ? `unused since ${new Date(v.lastUseMs).toISOString()}` : `least recently used (${new Date(v.lastUseMs).toISOString()})`;
    out(`${verb} ${v.entry} ${v.key.slice(0, 12)}${v.codepath === 'A' ? '' : ` (code path ${v.codepath})`}: ${formatBytes(v.bytes)}, ${why}`);
  }
  for (const e of r.locked) out(`kept ${e}: a build holds its lock`);
  out(`${verb} ${r.removed.length} variant(s), ${formatBytes(r.freedBytes)}; the cache holds ${formatBytes(r.bytesAfter)}${maxBytes !== undefined ? ` (limit ${formatBytes(maxBytes)})` : ''}`);
  return 0;
}
