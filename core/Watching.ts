import { statSync } from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { BuildRequest, BuildResult, Compiler } from './Compiler.js';
import { nativeHeaderFiles } from './cache/hashing.js';

/** What one configuration builds: reloaded when a file the config loaded changes. */
export interface WatchTarget {
  compiler: Compiler;
  /** The request of a full build (every module). */
  request: BuildRequest;
  /** Folders (recursive) where a new module may appear: the bases of the module globs. */
  moduleDirs?: string[];
  /** Lists the modules again (after a .py file was added to or removed from `moduleDirs`). */
  resolveModules?: () => Promise<string[]>;
}

export interface WatchOptions {
  /** Milliseconds to wait after a change for more changes before rebuilding (webpack's aggregateTimeout). */
  aggregateTimeout?: number;
  /** Poll every this many milliseconds instead of using file system events (network file systems). */
  poll?: number;
}

/** One build of a watch session. */
export interface WatchRun {
  /** Files whose change caused this build, absolute (none for the first build). */
  changed: string[];
  /** True when the config (or a plugin it loads) changed and was loaded again. */
  reloaded: boolean;
  /** The modules the build looked at: the affected ones, or every module on the first build. */
  modules: string[];
  /** Entries of modules no changed file reaches: neither read nor looked up. */
  unchanged: number;
  result: BuildResult;
  /** How many files are watched after this build. */
  watching: number;
}

/** Called after every build with its run, or with the error that stopped it (and the files that changed). */
export type WatchHandler = (error: Error | null, run: WatchRun | undefined, changed: string[]) => void;

/**
 * `orch build --watch`, after webpack's lib/Watching.js: build, then watch exactly the
 * files the build recorded reading. Changes are debounced; changes that arrive during a
 * build are merged into one rerun after it, so builds never overlap. A rebuild looks only
 * at the modules a changed file reaches (the cache makes their unchanged entries hits);
 * other modules are not even read. A change to the config or a plugin it loads reloads
 * the config and rebuilds everything (mostly hits). Errors are reported and watching goes on.
 */
export class Watching {
  private target: WatchTarget | undefined;
  private configFiles = new Set<string>();
  /** module -> files its entries depend on, from the last build that looked at it */
  private readonly moduleFiles = new Map<string, Set<string>>();
  /** modules whose last build failed: rebuilt on every change until fixed */
  private readonly failed = new Set<string>();
  /** entries per module, for the `unchanged` count */
  private readonly entryCount = new Map<string, number>();
  private readonly pending = new Map<string, number>();
  private watcher: FSWatcher | undefined;
  /** watches `moduleDirs` for modules that appear or disappear */
  private dirWatcher: FSWatcher | undefined;
  private dirWatched = '';
  private modulesChanged = false;
  private watched = new Set<string>();
  private dirs = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private closed = false;
  private idle: Promise<void> = Promise.resolve();

  constructor(
    private readonly load: () => Promise<WatchTarget>,
    private readonly handler: WatchHandler,
    private readonly options: WatchOptions = {},
    /** Watched until the config loads (the config file, found before loading it). */
    initialFiles: string[] = [],
  ) {
    for (const f of initialFiles) this.configFiles.add(path.resolve(f));
    this.idle = this.go();
  }

  /** Resolves when no build is running or scheduled (tests and benchmarks wait on it). */
  async settled(): Promise<void> {
    for (;;) {
      if (this.running) await this.idle;
      else if (this.timer) await new Promise((r) => setTimeout(r, this.options.aggregateTimeout ?? 50));
      else return;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.idle;
    await this.watcher?.close();
    await this.dirWatcher?.close();
    this.watcher = undefined;
    this.dirWatcher = undefined;
  }

  private onChange(file: string): void {
    if (this.closed) return;
    const time = Date.now();
    this.pending.set(path.resolve(file), time);
    this.target?.compiler.hooks.invalid.call(file, time);
    if (!this.running) this.schedule();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.idle = this.go();
    }, this.options.aggregateTimeout ?? 50);
  }

  private async go(): Promise<void> {
    if (this.closed) return;
    this.running = true;
    const changed = [...this.pending.keys()].sort();
    this.pending.clear();
    const startedAt = Date.now();
    try {
      const reloaded = !this.target || changed.some((f) => this.configFiles.has(f));
      if (reloaded) {
        this.target = await this.load();
        this.configFiles = new Set((this.target.compiler.config.files ?? []).map((f) => path.resolve(f)));
        this.moduleFiles.clear();
        this.failed.clear();
      }
      const target = this.target!;
      if (!reloaded && this.modulesChanged && target.resolveModules) {
        target.request = { ...target.request, modules: await target.resolveModules() };
        this.modulesChanged = false;
      }
      const { compiler, request } = target;
      const modules = reloaded ? request.modules : this.affected(request.modules, changed);
      await compiler.hooks.watchRun.promise(compiler, changed);
      const result = modules.length ? await compiler.build({ ...request, modules }) : emptyResult();
      this.remember(modules, result);
      for (const m of [...this.moduleFiles.keys()]) if (!request.modules.includes(m)) this.moduleFiles.delete(m);
      const unchanged = request.modules.filter((m) => !modules.includes(m)).reduce((n, m) => n + (this.entryCount.get(m) ?? 0), 0);
      await this.watch(startedAt);
      this.handler(null, { changed, reloaded, modules, unchanged, result, watching: this.watched.size }, changed);
    } catch (e) {
      // a broken config: keep watching what we had, so fixing it rebuilds
      await this.watch(startedAt).catch(() => undefined);
      this.handler(e as Error, undefined, changed);
    } finally {
      this.running = false;
    }
    if (this.pending.size && !this.closed) this.schedule();
  }

  /** Modules a changed file reaches, modules that failed last time, and modules never built. */
  private affected(modules: string[], changed: string[]): string[] {
    const headers = new Set(nativeHeaderFiles());
    if (changed.some((f) => headers.has(f))) return modules;
    return modules.filter((m) => {
      const files = this.moduleFiles.get(m);
      return !files || this.failed.has(m) || changed.some((f) => files.has(f));
    });
  }

  private remember(modules: string[], result: BuildResult): void {
    for (const m of modules) {
      this.moduleFiles.set(m, new Set([m]));
      this.failed.delete(m);
      this.entryCount.set(m, 0);
    }
    for (const e of result.entries) {
      const files = this.moduleFiles.get(e.module);
      if (!files) continue;
      // a failed entry may not know which of the files read were its imports (one that
      // does not parse never registers as one), so it depends on everything read
      for (const f of e.status === 'error' ? [...e.files, ...result.fileDependencies] : e.files) files.add(path.resolve(f));
      if (e.status === 'error') this.failed.add(e.module);
      this.entryCount.set(e.module, (this.entryCount.get(e.module) ?? 0) + 1);
    }
  }

  /** Watches the module glob bases for added and removed modules (not their edits: those are file dependencies). */
  private async watchModuleDirs(): Promise<void> {
    const dirs = (this.target?.moduleDirs ?? []).map((d) => path.resolve(d));
    const key = [...new Set(dirs)].sort().join('\n');
    if (key === this.dirWatched) return;
    await this.dirWatcher?.close();
    this.dirWatcher = undefined;
    this.dirWatched = key;
    if (!dirs.length) return;
    const w = watch(dirs, { ignoreInitial: true, ignored: notAModule, usePolling: !!this.options.poll, interval: this.options.poll });
    w.on('all', (event, file) => {
      if ((event !== 'add' && event !== 'unlink') || !file.endsWith('.py')) return;
      this.modulesChanged = true;
      this.onChange(file);
    });
    w.on('error', () => undefined);
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
    this.dirWatcher = w;
  }

  /** Folders of failed modules: a module created there may be the import they miss. */
  private failedDirs(): Set<string> {
    return new Set([...this.failed].map((m) => path.dirname(m)));
  }

  /** Every file the builds so far depend on, and the config's own files. */
  private wanted(): Set<string> {
    const files = new Set(this.configFiles);
    for (const set of this.moduleFiles.values()) for (const f of set) files.add(f);
    if (this.target) for (const f of nativeHeaderFiles()) files.add(f);
    return files;
  }

  /**
   * Watches the wanted files. A changed set gets a fresh watcher, ready before the old
   * one closes, so no change is lost in between; files modified after the build started
   * (read before they were watched) count as changed.
   */
  private async watch(buildStartedAt: number): Promise<void> {
    if (this.closed) return;
    await this.watchModuleDirs();
    const wanted = this.wanted();
    const dirs = this.failedDirs();
    const key = (set: Set<string>) => [...set].sort().join('\n');
    if (key(wanted) !== key(this.watched) || key(dirs) !== key(this.dirs)) {
      const next = watch([...wanted, ...dirs], { ignoreInitial: true, depth: 0, usePolling: !!this.options.poll, interval: this.options.poll });
      next.on('all', (event, file) => {
        if (event !== 'change' && event !== 'add' && event !== 'unlink') return;
        const abs = path.resolve(file);
        if (this.watched.has(abs) || (abs.endsWith('.py') && this.dirs.has(path.dirname(abs)))) this.onChange(abs);
      });
      next.on('error', () => undefined);
      await new Promise<void>((resolve) => next.once('ready', () => resolve()));
      const added = [...wanted].filter((f) => !this.watched.has(f));
      await this.watcher?.close();
      this.watcher = next;
      this.watched = wanted;
      this.dirs = dirs;
      for (const f of added) {
        let mtime: number;
        try {
          mtime = statSync(f).mtimeMs;
        } catch {
          continue;
        }
        if (mtime > buildStartedAt) this.pending.set(f, mtime);
      }
    }
  }
}

/** Python sources only; caches, packages and bytecode are never modules. */
function notAModule(file: string, stats?: { isFile(): boolean }): boolean {
  const parts = file.split(path.sep);
  if (parts.some((p) => p === 'node_modules' || p === '__pycache__' || p.startsWith('.gt_cache') || p === '.git')) return true;
  return !!stats?.isFile() && !file.endsWith('.py');
}

function emptyResult(): BuildResult {
  return { entries: [], errors: [], durationS: 0, fileDependencies: [], passTimes: new Map() };
}
