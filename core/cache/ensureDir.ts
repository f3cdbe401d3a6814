import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * `mkdir -p` that always terminates. Node's recursive mkdirSync spins forever on some
 * pseudo file systems (a folder under /proc answers ENOENT although its parent exists).
 */
export function ensureDir(dir: string): void {
  const missing: string[] = [];
  let d = path.resolve(dir);
  for (;;) {
    try {
      if (statSync(d).isDirectory()) break;
      const err = new Error(`ENOTDIR: not a directory, mkdir '${d}'`) as NodeJS.ErrnoException;
      err.code = 'ENOTDIR';
      throw err;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    missing.push(d);
    const up = path.dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const m of missing.reverse()) {
    try {
      mkdirSync(m);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}
