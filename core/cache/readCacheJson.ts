import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { schemaProblem } from './cacheSchemas.js';

/** Cache JSON files are small; a bigger one was corrupted (or planted) and is not read. */
const MAX_BYTES = 64 * 1024 * 1024;

type CacheRead<T> = { ok: true; value: T } | { ok: false; missing: boolean; problem: string };

/**
 * Reads a JSON file orch wrote into the cache and checks it against its schema. Every
 * failure (missing, a symlink, too big, not JSON, the wrong shape) is a value that says
 * what is wrong, for a miss reason; nothing here throws.
 */
export function readCacheJson<S extends z.ZodType>(file: string, schema: S): CacheRead<z.infer<S>> {
  const name = path.basename(file);
  let text: string;
  try {
    const st = lstatSync(file);
    if (st.isSymbolicLink()) return { ok: false, missing: false, problem: `${name} is a symbolic link` };
    if (!st.isFile()) return { ok: false, missing: false, problem: `${name} is not a file` };
    if (st.size > MAX_BYTES) return { ok: false, missing: false, problem: `${name} is too large (${st.size} bytes)` };
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, missing: code === 'ENOENT' || code === 'ENOTDIR', problem: `${name} cannot be read (${code ?? (e as Error).message})` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, missing: false, problem: `${name} is not valid JSON` };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, missing: false, problem: `${name} is malformed (${schemaProblem(parsed.error)})` };
  return { ok: true, value: parsed.data };
}
