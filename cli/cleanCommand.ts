import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { resolveConfig } from './toolset.js';
import { cacheRootExists } from './cacheRoot.js';

/** `orch clean`: removes every .gt_cache_<codepath> folder under the cache root. */
export async function cleanCommand(opts: { quiet?: boolean }): Promise<number> {
  const config = await resolveConfig();
  if (!cacheRootExists(config)) {
    if (!opts.quiet) process.stdout.write(`nothing to clean: the cache root ${config.cacheRoot} does not exist\n`);
    return 0;
  }
  let n = 0;
  for (const name of readdirSync(config.cacheRoot)) {
    if (!/^\.gt_cache_[A-Za-z0-9_.-]+$/.test(name)) continue;
    rmSync(path.join(config.cacheRoot, name), { recursive: true, force: true });
    n++;
  }
  if (!opts.quiet) process.stdout.write(`removed ${n} cache folder(s) under ${config.cacheRoot}\n`);
  return 0;
}
