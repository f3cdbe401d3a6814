import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fail } from '../diagnostics.js';
import { writeFileAtomic } from '../runtime/atomicWrite.js';
import { hashJson, sha256 } from './hashing.js';

/**
 * The content-addressed build cache (ARCHITECTURE §4).
 *
 *   $GT_CACHE_ROOT/.gt_cache_<codepath>/<module path>/<entry>/
 *     <key>/               one immutable entry: sources, library, ir.txt, build-info.json
 *     manifests/<opt>.json what files an entry built with these options read, and its key
 *     latest.json          the last manifest, to explain the next miss
 *     history.jsonl        hit/miss log for `orch info`
 *
 * A lookup first hashes the options (config, preset, compiler, externals ...), then checks
 * the files and environment variables the last build with those options read; only if
 * all match is it a hit, so a hit parses nothing. Entries are written in a staging folder and renamed into place.
 */

/** Everything except source files that changes a build's result. */
export interface EntryInputs {
  module: string;
  entry: string;
  codepath: string;
  externals: unknown;
  defines: unknown;
  preset: string;
  compiler: { cxx: string; identity: string; flags: string[] };
  codegen: unknown;
  plugins: { name: string; version: string }[];
  /** Folders imports are resolved in, after each module's own folder. */
  pythonPath?: string[];
  orch: string;
  native: string;
}

export interface Manifest {
  optionsKey: string;
  inputs: EntryInputs;
  /** absolute path -> sha256 of every source file the build read */
  files: Record<string, string>;
  /** environment variables the build read at compile time -> the value it saw (null: unset) */
  env?: Record<string, string | null>;
  key: string;
}

export interface BuildInfo {
  key: string;
  module: string;
  entry: string;
  symbol: string;
  library: string;
  created: string;
  inputs: EntryInputs;
  sources: Record<string, string>;
  /** environment variables read at compile time, with their values */
  env?: Record<string, string | null>;
  /** artifact file name -> sha256, checked on every load */
  checksums: Record<string, string>;
  warnings: unknown[];
  timings: Record<string, number>;
  signature: unknown;
  /** How to call the entry (core/runtime/callArgs.ts), so a hit needs no IR. */
  interface: unknown;
  command: string[];
}

export type Lookup =
  | { status: 'hit'; key: string; dir: string; info: BuildInfo; optionsKey: string }
  | { status: 'miss'; reason: string; optionsKey: string };

export interface HistoryRecord {
  time: string;
  result: 'hit' | 'miss' | 'error';
  key?: string;
  reason?: string;
}

/** Cache folder names are readable but can never escape the cache root. */
export function safeSegment(s: string): string {
  const cleaned = s.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '_');
  return cleaned.length ? cleaned.slice(0, 120) : '_';
}

export function moduleSegments(moduleRel: string): string[] {
  return moduleRel
    .replace(/\.py$/, '')
    .split(/[\\/]+/)
    .filter((p) => p && p !== '.')
    .map((p) => (p === '..' ? '_up' : safeSegment(p)));
}

export class BuildCache {
  readonly dir: string;

  constructor(
    readonly root: string,
    readonly codepath = 'A',
    /** The environment compile-time reads saw (checked on lookup). */
    private readonly env: Readonly<Record<string, string | undefined>> = process.env,
  ) {
    this.dir = path.join(root, `.gt_cache_${safeSegment(codepath)}`);
  }

  entryRoot(moduleRel: string, entry: string): string {
    return path.join(this.dir, ...moduleSegments(moduleRel), safeSegment(entry));
  }

  optionsKey(inputs: EntryInputs): string {
    return hashJson(inputs);
  }

  /** The entry key: options, the content of every file read, and every environment variable read. */
  keyFor(optionsKey: string, files: Map<string, string>, env: Map<string, string | null> = new Map()): string {
    const hashes: Record<string, string> = {};
    for (const [f, content] of files) hashes[f] = sha256(content);
    if (env.size === 0) return hashJson({ optionsKey, files: hashes });
    return hashJson({ optionsKey, files: hashes, env: Object.fromEntries(env) });
  }

  lookup(inputs: EntryInputs): Lookup {
    const root = this.entryRoot(inputs.module, inputs.entry);
    const optionsKey = this.optionsKey(inputs);
    const manifest = readJson<Manifest>(path.join(root, 'manifests', `${optionsKey}.json`));
    if (!manifest) return { status: 'miss', reason: this.explainNewOptions(root, inputs), optionsKey };
    for (const [file, hash] of Object.entries(manifest.files)) {
      let content: Buffer;
      try {
        content = readFileSync(file);
      } catch {
        return { status: 'miss', reason: `${file} was removed`, optionsKey };
      }
      if (sha256(content) !== hash) return { status: 'miss', reason: `${path.basename(file)} changed`, optionsKey };
    }
    const changedEnv = Object.entries(manifest.env ?? {}).filter(([name, value]) => (this.env[name] ?? null) !== value).map(([name]) => name);
    if (changedEnv.length) {
      return { status: 'miss', reason: `environment variable${changedEnv.length > 1 ? 's' : ''} ${changedEnv.join(', ')} changed`, optionsKey };
    }
    const dir = path.join(root, manifest.key);
    const problem = this.verifyEntry(dir);
    if (typeof problem === 'string') return { status: 'miss', reason: problem, optionsKey };
    return { status: 'hit', key: manifest.key, dir, info: problem, optionsKey };
  }

  /** Checks an entry against the checksums recorded at emit; returns the problem or its build info. */
  verifyEntry(dir: string): string | BuildInfo {
    const info = readJson<BuildInfo>(path.join(dir, 'build-info.json'));
    if (!info) return existsSync(dir) ? `cache entry ${path.basename(dir).slice(0, 12)} has a missing or unreadable build-info.json` : `cache entry ${path.basename(dir).slice(0, 12)} is missing`;
    for (const [name, hash] of Object.entries(info.checksums ?? {})) {
      let content: Buffer;
      try {
        content = readFileSync(path.join(dir, name));
      } catch {
        return `cache entry ${info.key.slice(0, 12)} lost ${name}`;
      }
      if (sha256(content) !== hash) return `cache entry ${info.key.slice(0, 12)} is corrupted (${name} does not match its checksum)`;
    }
    return info;
  }

  private explainNewOptions(root: string, inputs: EntryInputs): string {
    const latest = readJson<Manifest>(path.join(root, 'latest.json'));
    if (!latest) return 'no cache entry yet';
    const changed: string[] = [];
    const prev = latest.inputs as unknown as Record<string, unknown>;
    const cur = inputs as unknown as Record<string, unknown>;
    for (const k of Object.keys(cur)) if (hashJson(prev[k]) !== hashJson(cur[k])) changed.push(k === 'orch' ? 'orch version' : k === 'native' ? 'native headers' : k);
    return changed.length ? `${changed.join(', ')} changed` : 'options changed';
  }

  /** A fresh staging folder next to the entry (same file system, so the rename is atomic). */
  staging(moduleRel: string, entry: string): string {
    const root = this.entryRoot(moduleRel, entry);
    try {
      mkdirSync(root, { recursive: true });
    } catch (e) {
      fail('E_CACHE_WRITE', `cannot create the cache folder ${root}: ${(e as Error).message}`, { hint: 'make the cache root writable or point GT_CACHE_ROOT elsewhere' });
    }
    const dir = path.join(root, `.staging-${process.pid}-${randomBytes(4).toString('hex')}`);
    mkdirSync(dir);
    return dir;
  }

  /** Moves a finished staging folder into place and records how to find it again. */
  commit(staging: string, manifest: Manifest): string {
    const root = this.entryRoot(manifest.inputs.module, manifest.inputs.entry);
    const final = path.join(root, manifest.key);
    if (existsSync(final) && typeof this.verifyEntry(final) !== 'string') {
      // another process built the same entry first; keep theirs
      rmSync(staging, { recursive: true, force: true });
    } else {
      if (existsSync(final)) rmSync(final, { recursive: true, force: true });
      renameSync(staging, final);
    }
    mkdirSync(path.join(root, 'manifests'), { recursive: true });
    const text = JSON.stringify(manifest, null, 1);
    writeFileAtomic(path.join(root, 'manifests', `${manifest.optionsKey}.json`), text);
    writeFileAtomic(path.join(root, 'latest.json'), text);
    return final;
  }

  record(moduleRel: string, entry: string, rec: HistoryRecord): void {
    const root = this.entryRoot(moduleRel, entry);
    try {
      mkdirSync(root, { recursive: true });
      appendFileSync(path.join(root, 'history.jsonl'), `${JSON.stringify(rec)}\n`);
    } catch {
      // history is informational; a read-only cache must not fail a hit
    }
  }

  history(root: string): HistoryRecord[] {
    try {
      return readFileSync(path.join(root, 'history.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as HistoryRecord);
    } catch {
      return [];
    }
  }

  /** Every entry folder (one per module and entry) under this code path. */
  entries(): string[] {
    const out: string[] = [];
    const walk = (d: string) => {
      let names: string[];
      try {
        names = readdirSync(d);
      } catch {
        return;
      }
      if (names.includes('latest.json') || names.includes('history.jsonl')) out.push(d);
      for (const n of names) {
        const f = path.join(d, n);
        if (!n.startsWith('.') && n !== 'manifests' && statSync(f).isDirectory() && !/^[0-9a-f]{64}$/.test(n)) walk(f);
      }
    };
    walk(this.dir);
    return out.sort();
  }
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}
