import { launcherRank } from '../layout/HaloTopology.js';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { EntryLock, processAlive } from './EntryLock.js';
import { ensureDir } from './ensureDir.js';
import { writeFileAtomic } from '../runtime/atomicWrite.js';
import { hashJson, sha256 } from './hashing.js';
import { BadMarkSchema, BuildInfoSchema, HistoryRecordSchema, ManifestSchema } from './cacheSchemas.js';
import { readCacheJson } from './readCacheJson.js';
import { jsonDifferences } from './jsonDiff.js';
import { cacheFileUnwritable, cannotCreateCache, cannotWriteCache } from '../diagnostics/toolchainErrors.js';

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
  /** The module's path relative to the project root (cache folder names, messages). */
  module: string;
  /**
   * The module's absolute path: two projects sharing one cache root may hold modules with
   * the same relative path, and a module outside the root must not look like one inside.
   */
  modulePath: string;
  entry: string;
  codepath: string;
  externals: unknown;
  defines: unknown;
  /** An orchestrated component's resolved closure: source locations, values, array descriptors. */
  closure?: unknown;
  preset: string;
  /** `cudaArch`: the resolved GPU architectures of a CUDA build. */
  compiler: { cxx: string; identity: string; flags: string[]; cudaArch?: string };
  codegen: unknown;
  /** The codegen options `orch tune --write-cache` recorded for this entry and preset (already in `codegen`). */
  tuned?: unknown;
  plugins: { name: string; version: string }[];
  /** The built-in passes on and off (`passes` in the config). */
  passes?: unknown;
  /** The debug checkers' options (`debug` in the config, `--debug`). */
  debug?: unknown;
  /** Folders imports are resolved in, after each module's own folder. */
  pythonPath?: string[];
  orch: string;
  native: string;
  /** Layout builds: the per-rank compute domain and halo the code path was built for. */
  layout?: { domain: number[]; halo: number };
}

export interface Manifest {
  optionsKey: string;
  inputs: EntryInputs;
  /** absolute path -> sha256 of every source file the build read */
  files: Record<string, string>;
  /**
   * Paths the build's imports looked at and found absent before the file they resolved to
   * (Python's import order): a file appearing at one would shadow an import.
   */
  absent?: string[];
  /** environment variables the build read at compile time -> the value it saw (null: unset) */
  env?: Record<string, string | null>;
  key: string;
  /** sha256 of the entry's build-info.json, so an edited build info is detected */
  infoHash?: string;
}

export interface BuildInfo {
  key: string;
  module: string;
  entry: string;
  symbol: string;
  library: string;
  /** The generated Python (ctypes) binding, next to the library. */
  binding?: string;
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
  /** Layout builds: the layout built, this entry's code path, the per-rank domain and halo. */
  layout?: { layout: string; codepath: string; domain: number[]; halo: number };
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
  /** Who looked up or built: the process, and its rank when an MPI launcher started it. */
  pid?: number;
  rank?: number;
}

/** File system errors while writing the cache, as diagnostics that say what to do. */
export function cacheWriteError(e: unknown, where: string): never {
  const err = e as NodeJS.ErrnoException;
  const hints: Record<string, string> = {
    ENOSPC: 'the disk holding the cache is full: free space, or point GT_CACHE_ROOT at another disk',
    EDQUOT: 'your disk quota is exhausted: free space, or point GT_CACHE_ROOT elsewhere',
    EACCES: 'the cache folder is not writable: fix its permissions or point GT_CACHE_ROOT elsewhere',
    EPERM: 'the cache folder is not writable: fix its permissions or point GT_CACHE_ROOT elsewhere',
    EROFS: 'the cache is on a read-only file system: point GT_CACHE_ROOT at a writable folder',
  };
  throw cacheFileUnwritable(where, err?.message ?? String(e), hints[err?.code ?? ''] ?? 'check that GT_CACHE_ROOT points at a writable folder with free space');
}

/** writeFileSync for cache artifacts, with cache-write diagnostics. */
export function writeCacheFile(file: string, data: string | Uint8Array): void {
  try {
    writeFileSync(file, data);
  } catch (e) {
    cacheWriteError(e, file);
  }
}

/** Cache folder names are readable but can never escape the cache root. */
function safeSegment(s: string): string {
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
    const read = readCacheJson(path.join(root, 'manifests', `${optionsKey}.json`), ManifestSchema);
    if (!read.ok && read.missing) return { status: 'miss', reason: this.explainNewOptions(root, inputs), optionsKey };
    // a corrupted manifest is a miss; the build it causes rewrites it
    if (!read.ok) return { status: 'miss', reason: `the cache manifest is corrupted: ${read.problem}`, optionsKey };
    const manifest = read.value as unknown as Manifest;
    if (manifest.optionsKey !== optionsKey) return { status: 'miss', reason: 'the cache manifest is corrupted: it is filed under other options', optionsKey };
    // the options key covers the module's absolute path; this also refuses manifests written before it did
    if (!Object.hasOwn(manifest.files, inputs.modulePath)) return { status: 'miss', reason: `entry was built from another file than ${inputs.modulePath}`, optionsKey };
    for (const [file, hash] of Object.entries(manifest.files)) {
      let content: Buffer;
      try {
        content = readFileSync(file);
      } catch {
        return { status: 'miss', reason: `${file} was removed`, optionsKey };
      }
      if (sha256(content) !== hash) return { status: 'miss', reason: `${path.basename(file)} changed`, optionsKey };
    }
    const shadow = (manifest.absent ?? []).find((p) => existsSync(p));
    if (shadow) return { status: 'miss', reason: `${shadow} now shadows an import`, optionsKey };
    const changedEnv = Object.entries(manifest.env ?? {}).filter(([name, value]) => (this.env[name] ?? null) !== value).map(([name]) => name);
    if (changedEnv.length) {
      return { status: 'miss', reason: `environment variable${changedEnv.length > 1 ? 's' : ''} ${changedEnv.join(', ')} changed`, optionsKey };
    }
    const dir = path.join(root, manifest.key);
    const bad = readCacheJson(this.badMark(root, manifest.key), BadMarkSchema);
    if (bad.ok) return { status: 'miss', reason: `cache entry ${manifest.key.slice(0, 12)} was marked bad (${bad.value.reason})`, optionsKey };
    if (!bad.missing) return { status: 'miss', reason: `cache entry ${manifest.key.slice(0, 12)} has an unreadable bad mark (${bad.problem})`, optionsKey };
    const problem = this.verifyEntry(dir, manifest.infoHash);
    if (typeof problem === 'string') return { status: 'miss', reason: problem, optionsKey };
    return { status: 'hit', key: manifest.key, dir, info: problem, optionsKey };
  }

  /** Checks an entry against the checksums recorded at emit; returns the problem or its build info. */
  verifyEntry(dir: string, infoHash?: string): string | BuildInfo {
    const short = path.basename(dir).slice(0, 12);
    // the entry folder must be a real folder inside the cache, not a link to elsewhere
    try {
      if (!lstatSync(dir).isDirectory()) return `cache entry ${short} is not a folder`;
    } catch {
      return `cache entry ${short} is missing`;
    }
    const file = path.join(dir, 'build-info.json');
    // the recorded hash first: an edit is reported as one, whatever it broke
    if (infoHash) {
      let raw: Buffer | undefined;
      try {
        if (lstatSync(file).isFile()) raw = readFileSync(file);
      } catch {
        raw = undefined;
      }
      if (raw && sha256(raw) !== infoHash) return `cache entry ${short} is corrupted (build-info.json was modified)`;
    }
    const read = readCacheJson(file, BuildInfoSchema);
    if (!read.ok) return read.missing ? `cache entry ${short} has a missing build-info.json` : `cache entry ${short} is corrupted (${read.problem})`;
    const info = read.value as unknown as BuildInfo;
    if (info.key !== path.basename(dir)) return `cache entry ${short} is corrupted (its build-info.json is for entry ${info.key.slice(0, 12)})`;
    if (!Object.hasOwn(info.checksums, info.library)) return `cache entry ${short} is corrupted (its library has no checksum)`;
    if (info.binding && !Object.hasOwn(info.checksums, info.binding)) return `cache entry ${short} is corrupted (its binding has no checksum)`;
    for (const [name, hash] of Object.entries(info.checksums)) {
      const f = path.join(dir, name);
      let content: Buffer;
      try {
        // an artifact must be a regular file: a link could point anywhere, and a FIFO would hang the read
        if (!lstatSync(f).isFile()) return `cache entry ${short} is corrupted (${name} is not a regular file)`;
        content = readFileSync(f);
      } catch {
        return `cache entry ${short} lost ${name}`;
      }
      if (sha256(content) !== hash) return `cache entry ${short} is corrupted (${name} does not match its checksum)`;
    }
    return info;
  }

  private badMark(root: string, key: string): string {
    return path.join(root, 'bad', `${key}.json`);
  }

  /**
   * Marks an entry whose library failed to load at run time: the next lookup is a miss that
   * says why, and the rebuild replaces it. The entry's files go, so nothing loads them again.
   */
  markBad(moduleRel: string, entry: string, key: string, reason: string): void {
    const root = this.entryRoot(moduleRel, entry);
    // only a key of this entry that is still there (other entries of the request are not marked)
    if (!/^[0-9a-f]{64}$/.test(key) || !existsSync(path.join(root, key))) return;
    try {
      ensureDir(path.join(root, 'bad'));
      writeFileAtomic(this.badMark(root, key), JSON.stringify({ reason, time: new Date().toISOString() }));
      const grave = path.join(root, `.bad-${process.pid}-${randomBytes(4).toString('hex')}`);
      renameSync(path.join(root, key), grave);
      rmSync(grave, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') cacheWriteError(e, `cache entry ${key.slice(0, 12)}`);
    }
  }

  private explainNewOptions(root: string, inputs: EntryInputs): string {
    const read = readCacheJson(path.join(root, 'latest.json'), ManifestSchema);
    if (!read.ok) return read.missing ? 'no cache entry yet' : `no cache entry for these options (${read.problem})`;
    const latest = read.value as unknown as Manifest;
    const changed: string[] = [];
    const prev = latest.inputs as unknown as Record<string, unknown>;
    const cur = inputs as unknown as Record<string, unknown>;
    for (const k of new Set([...Object.keys(cur), ...Object.keys(prev)])) {
      if (hashJson(prev[k]) === hashJson(cur[k])) continue;
      if (k === 'closure') changed.push(`closure (${jsonDifferences(prev[k], cur[k]).join('; ')})`);
      else changed.push(k === 'modulePath' ? `module path (built from ${String(prev[k])})` : k === 'orch' ? 'orch version' : k === 'native' ? 'native headers' : k === 'layout' ? describeLayoutChange(latest.inputs.layout, inputs.layout) : k);
    }
    return changed.length ? `${changed.join(', ')} changed` : 'options changed';
  }

  /** The lock a builder of this entry holds (see EntryLock). */
  lock(moduleRel: string, entry: string): EntryLock {
    const root = this.entryRoot(moduleRel, entry);
    try {
      ensureDir(root);
    } catch (e) {
      throw cannotCreateCache(root, (e as Error).message);
    }
    return new EntryLock(path.join(root, '.lock'));
  }

  /** Removes staging folders left by killed builds of this host (call while holding the lock). */
  removeAbandonedStaging(moduleRel: string, entry: string): void {
    const root = this.entryRoot(moduleRel, entry);
    const host = safeSegment(os.hostname());
    for (const n of readdirSafe(root)) {
      const m = /^\.staging-(.+)-(\d+)-[0-9a-f]+$/.exec(n);
      if (m && m[1] === host && !processAlive(Number(m[2]))) rmSync(path.join(root, n), { recursive: true, force: true });
    }
  }

  discardStaging(dir: string | undefined): void {
    if (dir && path.basename(dir).startsWith('.staging-')) rmSync(dir, { recursive: true, force: true });
  }

  /** A fresh staging folder next to the entry (same file system, so the rename is atomic). */
  staging(moduleRel: string, entry: string): string {
    const root = this.entryRoot(moduleRel, entry);
    try {
      ensureDir(root);
    } catch (e) {
      throw cannotCreateCache(root, (e as Error).message);
    }
    const dir = path.join(root, `.staging-${safeSegment(os.hostname())}-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      mkdirSync(dir);
    } catch (e) {
      throw cannotWriteCache(root, (e as Error).message);
    }
    return dir;
  }

  /** Moves a finished staging folder into place and records how to find it again. */
  commit(staging: string, manifest: Manifest): string {
    try {
      return this.commitUnchecked(staging, manifest);
    } catch (e) {
      if ((e as { code?: string }).code) cacheWriteError(e, `cache entry ${manifest.key.slice(0, 12)}`);
      throw e;
    }
  }

  private commitUnchecked(staging: string, manifest: Manifest): string {
    const root = this.entryRoot(manifest.inputs.module, manifest.inputs.entry);
    const final = path.join(root, manifest.key);
    const bad = this.badMark(root, manifest.key);
    if (existsSync(bad)) rmSync(final, { recursive: true, force: true });
    if (existsSync(final) && typeof this.verifyEntry(final, manifest.infoHash) !== 'string') {
      // another process built the same entry first; keep theirs
      rmSync(staging, { recursive: true, force: true });
    } else {
      if (existsSync(final)) rmSync(final, { recursive: true, force: true });
      renameSync(staging, final);
    }
    rmSync(bad, { force: true });
    ensureDir(path.join(root, 'manifests'));
    const text = JSON.stringify(manifest, null, 1);
    writeFileAtomic(path.join(root, 'manifests', `${manifest.optionsKey}.json`), text);
    writeFileAtomic(path.join(root, 'latest.json'), text);
    return final;
  }

  record(moduleRel: string, entry: string, rec: HistoryRecord): void {
    const root = this.entryRoot(moduleRel, entry);
    try {
      ensureDir(root);
      const rank = launcherRank();
      appendNoFollow(path.join(root, 'history.jsonl'), `${JSON.stringify({ ...rec, pid: process.pid, ...(rank !== undefined ? { rank } : {}) })}\n`);
      // the variant's last use, for LRU eviction (orch clean --max-size): one utimes, no write
      if (rec.result === 'hit' && rec.key && /^[0-9a-f]{64}$/.test(rec.key)) utimesSync(path.join(root, rec.key), new Date(), new Date());
    } catch {
      // history is informational; a read-only cache must not fail a hit
    }
  }

  /** The hit/miss log; lines that do not parse (a torn append, an edit) are left out. */
  history(root: string): HistoryRecord[] {
    let text: string;
    try {
      const file = path.join(root, 'history.jsonl');
      // a link could point anywhere outside the cache
      if (!lstatSync(file).isFile()) return [];
      text = readFileSync(file, 'utf8');
    } catch {
      return [];
    }
    const out: HistoryRecord[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const r = HistoryRecordSchema.safeParse(JSON.parse(line));
        if (r.success) out.push(r.data);
      } catch {
        // not JSON: skipped
      }
    }
    return out;
  }

  /** The last manifest of an entry folder, or why there is none (for `orch info`). */
  latest(root: string): Manifest | string {
    const read = readCacheJson(path.join(root, 'latest.json'), ManifestSchema);
    return read.ok ? (read.value as unknown as Manifest) : read.missing ? 'no entry' : read.problem;
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
        if (!n.startsWith('.') && n !== 'manifests' && isRealDirectory(f) && !/^[0-9a-f]{64}$/.test(n)) walk(f);
      }
    };
    walk(this.dir);
    return out.sort();
  }
}

/**
 * Appends to a cache file without following a symbolic link: a link planted in the cache
 * must not make orch write outside it. Anything but a regular file there is replaced.
 */
function appendNoFollow(file: string, line: string): void {
  const open = () => openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW);
  let fd: number;
  try {
    if (!lstatSync(file).isFile()) rmSync(file, { recursive: true, force: true });
  } catch {
    // absent: created below
  }
  try {
    fd = open();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOOP') throw e;
    // a link planted between the check and the open
    rmSync(file, { force: true });
    fd = open();
  }
  try {
    writeSync(fd, line);
  } finally {
    closeSync(fd);
  }
}

/** A folder, not a link to one (the walk must stay inside the cache), and still there. */
function isRealDirectory(f: string): boolean {
  try {
    return lstatSync(f).isDirectory();
  } catch {
    return false;
  }
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function describeLayoutChange(built: EntryInputs['layout'], asked: EntryInputs['layout']): string {
  const dom = (l: NonNullable<EntryInputs['layout']>) => l.domain.join('x');
  if (!built) return 'layout (built without one)';
  if (!asked) return `layout (built for a rank domain of ${dom(built)})`;
  if (dom(built) !== dom(asked)) return `per-rank domain (built for ${dom(built)}, asked for ${dom(asked)})`;
  return `halo (built for ${built.halo}, asked for ${asked.halo})`;
}
