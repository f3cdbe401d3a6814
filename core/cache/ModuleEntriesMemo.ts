import path from 'node:path';
import { ensureDir } from './ensureDir.js';
import { sha256 } from './hashing.js';
import { ModuleEntriesSchema } from './cacheSchemas.js';
import { readCacheJson } from './readCacheJson.js';
import { writeFileAtomic } from '../runtime/atomicWrite.js';

/**
 * `.modules/<file>-<source>.json`: the entry names of one module source, so a build whose
 * entries all hit parses nothing. The names carry a checksum over the module and its
 * source: a memo edited into other valid names (`["smooth"]` for a module whose entry is
 * `twice`) would otherwise fail every later build, or build nothing, until `orch clean`.
 */
export class ModuleEntriesMemo {
  constructor(private readonly cacheDir: string) {}

  private file(module: string, source: string): string {
    return path.join(this.cacheDir, '.modules', `${sha256(module)}-${sha256(source).slice(0, 16)}.json`);
  }

  private static check(module: string, source: string, entries: string[]): string {
    return sha256(JSON.stringify([module, sha256(source), entries]));
  }

  /** The remembered entries, or undefined when there are none or they do not check out. */
  read(module: string, source: string): string[] | undefined {
    const read = readCacheJson(this.file(module, source), ModuleEntriesSchema);
    if (!read.ok || read.value.check !== ModuleEntriesMemo.check(module, source, read.value.entries)) return undefined;
    return read.value.entries;
  }

  write(module: string, source: string, entries: string[]): void {
    const file = this.file(module, source);
    try {
      ensureDir(path.dirname(file));
      writeFileAtomic(file, JSON.stringify({ entries, check: ModuleEntriesMemo.check(module, source, entries) }));
    } catch {
      // a read-only cache still builds
    }
  }
}
