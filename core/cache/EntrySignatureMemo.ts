import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { EntrySignature } from '../frontend/entrySignature.js';
import type { ModuleLoader } from '../frontend/ModuleLoader.js';
import { writeFileAtomic } from '../runtime/atomicWrite.js';
import { EntrySignatureMemoSchema } from './cacheSchemas.js';
import { ensureDir } from './ensureDir.js';
import { sha256 } from './hashing.js';
import { readCacheJson } from './readCacheJson.js';

/**
 * `.signatures/<file>-<entry>.json`: an entry's signature (compile-time arguments with
 * their defaults, backend=), which the key needs before the lookup, with what it was read
 * from: every file (sha256), environment variable and import path found absent. A default
 * may come from an imported constant, so the memo holds only while all of them do; a hit
 * then parses nothing.
 */
export class EntrySignatureMemo {
  constructor(private readonly cacheDir: string) {}

  private file(module: string, entry: string): string {
    return path.join(this.cacheDir, '.signatures', `${sha256(module).slice(0, 32)}-${entry}.json`);
  }

  /** The remembered signature, or undefined when there is none or anything it was read from changed. */
  read(module: string, entry: string): EntrySignature | undefined {
    const read = readCacheJson(this.file(module, entry), EntrySignatureMemoSchema);
    if (!read.ok) return undefined;
    for (const [name, value] of Object.entries(read.value.env)) if ((process.env[name] ?? null) !== value) return undefined;
    if (read.value.absent.some((f) => existsSync(f))) return undefined;
    for (const [f, hash] of Object.entries(read.value.files)) {
      let text: string;
      try {
        text = readFileSync(f, 'utf8');
      } catch {
        return undefined;
      }
      if (sha256(text) !== hash) return undefined;
    }
    return read.value.signature;
  }

  /** Remembers `signature`, read by `loader` from `module` and what it imports. */
  write(module: string, entry: string, signature: EntrySignature, loader: ModuleLoader): void {
    const files = Object.fromEntries([...loader.dependencies(module)].map(([f, text]) => [f, sha256(text)]));
    const file = this.file(module, entry);
    try {
      ensureDir(path.dirname(file));
      writeFileAtomic(file, JSON.stringify({ files, env: Object.fromEntries(loader.environment(module)), absent: loader.absences(module), signature }));
    } catch {
      // a read-only cache still builds
    }
  }
}
