import { statSync } from 'node:fs';
import type { ResolvedConfig } from '../core/config/types.js';
import { cacheRootNotFolder } from '../core/diagnostics/toolchainErrors.js';

/**
 * The cache root every command starts from: absent is fine (nothing cached yet; a build
 * creates it), anything but a folder is the user's setting to fix, said once up front
 * rather than as the ENOTDIR of whichever file orch touches first.
 */
export function cacheRootExists(config: ResolvedConfig): boolean {
  let kind: string;
  try {
    const st = statSync(config.cacheRoot);
    if (st.isDirectory()) return true;
    kind = st.isFile() ? 'a file' : 'not a folder';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    // a path through a file (ENOTDIR) or one orch may not look at (EACCES)
    kind = code === 'ENOTDIR' ? 'a path through a file' : `unreadable (${(e as Error).message})`;
  }
  const from = process.env.GT_CACHE_ROOT ? `GT_CACHE_ROOT=${process.env.GT_CACHE_ROOT}` : 'cacheRoot in orch.config.ts';
  throw cacheRootNotFolder(config.cacheRoot, from, kind);
}
