import path from 'node:path';
import { PACKAGE_ROOT } from '../cache/hashing.js';
import { libraryDoesNotLoad } from '../diagnostics/toolchainErrors.js';

// from the package root, not this file: the bundled CLI (dist/bundle/) runs this code too
const PROBE = path.join(PACKAGE_ROOT, 'dist', 'core', 'toolchain', 'loadProbe.js');

/**
 * A compiler that exits 0 can still write a library that does not load (a broken wrapper,
 * a full disk, a wrong -shared): committed, it would fail every later run while builds
 * report hits. Load it in a child process before it goes into the cache.
 */
export async function checkLibraryLoads(library: string, symbol: string, compiler: string): Promise<void> {
  // execa is imported when a build needs it, not at every start (see askTool.ts)
  const { execa } = await import('execa');
  const r = await execa(process.execPath, [PROBE, library, symbol], { reject: false, stdin: 'ignore', encoding: 'utf8', timeout: 60_000 });
  if (r.exitCode === 0) return;
  const why = String(r.stderr || '').trim() || (r.signal ? `the loading process died of ${r.signal}` : `exit code ${r.exitCode}`);
  throw libraryDoesNotLoad(compiler, why);
}
