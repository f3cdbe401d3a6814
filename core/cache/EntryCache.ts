import { SyncBailHook, SyncHook } from 'tapable';
import { OrchError, OrchErrors } from '../diagnostics.js';
import { BuildCache, type BuildInfo, type EntryInputs, type HistoryRecord, type Lookup, type Manifest } from './BuildCache.js';
import { sha256 } from './hashing.js';
import type { LockOwner } from './EntryLock.js';

/** Which cache entry: the module (relative to the project root) and the entry's name. */
export interface CacheEntryRef {
  moduleRel: string;
  entry: string;
}

export type CacheHit = Extract<Lookup, { status: 'hit' }>;

/** What the build read, as the parse stage records it: the key is made from it. */
export interface KeyInputs {
  files: Map<string, string>;
  env: Map<string, string | null>;
  absent: string[];
}

/** How a `fetch` ended. `built` carries what the build function returned. */
export type CacheOutcome<T> =
  | { status: 'hit'; hit: CacheHit; reason?: string }
  | { status: 'miss'; reason: string }
  | { status: 'built'; reason: string; key: string; dir: string; value: T }
  | { status: 'error'; reason: string; error: unknown };

/**
 * One entry being built under its lock: the one staging folder the stages write into, the
 * entry key, and the commit that moves the staging folder into place. Codegen asks it for
 * the staging folder, emit for the key and the commit (EntryBuild.cache).
 */
export class EntryTransaction {
  private stagingDir: string | undefined;
  private committed: { key: string; dir: string } | undefined;

  constructor(
    private readonly cache: EntryCache,
    readonly ref: CacheEntryRef,
    readonly inputs: EntryInputs,
    readonly optionsKey: string,
  ) {}

  /** The staging folder, made on first use (a build that fails before codegen leaves none). */
  staging(): string {
    this.stagingDir ??= this.cache.store.staging(this.ref.moduleRel, this.ref.entry);
    return this.stagingDir;
  }

  /** The entry key: the options, the content of every file read and every environment variable read. */
  key(read: KeyInputs): string {
    return this.cache.store.keyFor(this.optionsKey, read.files, read.env);
  }

  /** Moves the staging folder into place as the entry `key(read)`; returns the entry folder. */
  commit(read: KeyInputs, infoText: string): string {
    if (!this.stagingDir) throw new Error(`commit of ${this.ref.moduleRel}:${this.ref.entry} before any staging folder was made`);
    const files: Record<string, string> = {};
    for (const [f, content] of read.files) files[f] = sha256(content);
    const key = this.key(read);
    const manifest: Manifest = { optionsKey: this.optionsKey, inputs: this.inputs, files, absent: read.absent, ...(read.env.size ? { env: Object.fromEntries(read.env) } : {}), key, infoHash: sha256(infoText) };
    const dir = this.cache.store.commit(this.stagingDir, manifest);
    this.stagingDir = undefined;
    this.committed = { key, dir };
    this.cache.hooks.commit.call(this.ref, dir, manifest);
    return dir;
  }

  get result(): { key: string; dir: string } | undefined {
    return this.committed;
  }

  /** Removes what a failed build left in its staging folder. */
  discard(): void {
    this.cache.store.discardStaging(this.stagingDir);
    this.stagingDir = undefined;
  }
}

/**
 * The one owner of the cache protocol, as webpack's `Cache` is its compiler's: lookup →
 * lock → look up again → staging → commit → record. The Compiler asks `fetch` for an
 * entry; the stages reach the cache only through the entry's `EntryTransaction`.
 * Hooks let plugins refuse a hit (`validate`) and observe the rest.
 */
export class EntryCache {
  readonly hooks = Object.freeze({
    /** Refuse a hit: return why the entry found is stale for this request. */
    validate: new SyncBailHook<[BuildInfo, EntryInputs], string | undefined>(['info', 'inputs']),
    /** Each lookup's outcome (a fetch that misses looks up twice: before and after the lock). */
    lookup: new SyncHook<[CacheEntryRef, Lookup]>(['entry', 'lookup']),
    /** Another process holds the entry's lock; this one waits for it. */
    wait: new SyncHook<[CacheEntryRef, LockOwner | undefined, Date | undefined]>(['entry', 'owner', 'since']),
    /** A built entry was moved into place. */
    commit: new SyncHook<[CacheEntryRef, string, Manifest]>(['entry', 'dir', 'manifest']),
    /** A line was added to the entry's history (hit, miss or error). */
    record: new SyncHook<[CacheEntryRef, HistoryRecord]>(['entry', 'record']),
  });

  constructor(readonly store: BuildCache) {}

  /** The cache folder of this code path (`.gt_cache_<codepath>`). */
  get dir(): string {
    return this.store.dir;
  }

  /** The store's lookup, then the `validate` taps: a refused hit is a miss with their reason. */
  lookup(inputs: EntryInputs): Lookup {
    const found = this.store.lookup(inputs);
    const refused = found.status === 'hit' ? this.hooks.validate.call(found.info, inputs) : undefined;
    const result: Lookup = refused ? { status: 'miss', reason: refused, optionsKey: found.optionsKey } : found;
    this.hooks.lookup.call({ moduleRel: inputs.module, entry: inputs.entry }, result);
    return result;
  }

  record(ref: CacheEntryRef, rec: Omit<HistoryRecord, 'time'>): void {
    const full: HistoryRecord = { time: new Date().toISOString(), ...rec };
    this.store.record(ref.moduleRel, ref.entry, full);
    this.hooks.record.call(ref, full);
  }

  /**
   * The entry for `inputs`: a hit, or (unless `lookupOnly`) built by `build` under the
   * entry's lock. One process builds an entry; the others wait, then find it built. A
   * build must commit through its transaction; a failed one leaves no staging folder.
   */
  async fetch<T>(
    inputs: EntryInputs,
    build: (tx: EntryTransaction) => Promise<T>,
    opts: { lookupOnly?: boolean; badEntries?: Record<string, string> } = {},
  ): Promise<CacheOutcome<T>> {
    const ref = { moduleRel: inputs.module, entry: inputs.entry };
    for (const [key, why] of Object.entries(opts.badEntries ?? {})) this.store.markBad(ref.moduleRel, ref.entry, key, why);
    const found = this.lookup(inputs);
    if (found.status === 'hit') return this.hit(ref, found);
    if (opts.lookupOnly) return { status: 'miss', reason: found.reason };
    const reason = found.reason;
    let lock;
    try {
      lock = this.store.lock(ref.moduleRel, ref.entry);
      await lock.acquire((owner, since) => this.hooks.wait.call(ref, owner, since));
    } catch (error) {
      return { status: 'error', reason, error };
    }
    try {
      const again = this.lookup(inputs);
      if (again.status === 'hit') return this.hit(ref, again, 'built by another process');
      this.store.removeAbandonedStaging(ref.moduleRel, ref.entry);
      const tx = new EntryTransaction(this, ref, inputs, found.optionsKey);
      let value: T;
      try {
        value = await build(tx);
        if (!tx.result) throw new Error(`the build of ${ref.moduleRel}:${ref.entry} ended without committing its cache entry`);
      } catch (error) {
        tx.discard();
        this.record(ref, { result: 'error', reason: errorMessage(error) });
        return { status: 'error', reason, error };
      }
      this.record(ref, { result: 'miss', key: tx.result.key, reason });
      return { status: 'built', reason, key: tx.result.key, dir: tx.result.dir, value };
    } finally {
      lock.release();
    }
  }

  private hit(ref: CacheEntryRef, hit: CacheHit, reason?: string): CacheOutcome<never> {
    this.record(ref, { result: 'hit', key: hit.key, reason });
    return { status: 'hit', hit, reason };
  }
}

function errorMessage(e: unknown): string | undefined {
  if (e instanceof OrchError) return e.diagnostic.message;
  if (e instanceof OrchErrors) return e.diagnostics[0]?.message;
  return e instanceof Error ? e.message : String(e);
}
