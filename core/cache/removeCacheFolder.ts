import { randomBytes } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { cacheWriteError } from './BuildCache.js';

/** What a removal in progress is renamed to; `orch clean` also removes ones a killed clean left. */
export const REMOVING = /^\.orch-removing-/;

/**
 * Removes a cache folder while builds may be writing into it. A recursive remove of the
 * folder in place races with them (a build adds a file after the remove emptied a folder:
 * ENOTEMPTY); renamed aside first, the folder is out of every build's path at once, and
 * builds that start afterwards make a fresh one.
 */
export function removeCacheFolder(dir: string): void {
  const aside = REMOVING.test(path.basename(dir)) ? dir : path.join(path.dirname(dir), `.orch-removing-${path.basename(dir)}-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    if (aside !== dir) renameSync(dir, aside);
    rmSync(aside, { recursive: true, force: true, maxRetries: 3 });
  } catch (e) {
    // removed by another clean meanwhile
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    cacheWriteError(e, dir);
  }
}
