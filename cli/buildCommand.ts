import { exitStatus } from './failure.js';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { formatDiagnostic, type Diagnostic } from '../core/diagnostics.js';
import { Compiler, type BuildResult } from '../core/Compiler.js';
import { parseClosure, type Closure } from '../core/frontend/closure.js';
import { layoutText } from '../core/layout/RankLayout.js';
import { ProgressPlugin } from '../core/ProgressPlugin.js';
import { layoutRequest, type LayoutOptions } from './layoutOptions.js';
import { noEntriesError } from './noEntries.js';
import { ProgressDisplay } from './ProgressDisplay.js';
import { jsonDiagnostic, openSession, timePassesTable, type CommonOptions } from './session.js';
import { printDiagnostics } from './failure.js';
import { cacheMiss } from '../core/diagnostics/codes.js';
import { formatBytes } from '../core/cache/quantities.js';
import { closureForOtherClass, closureNeedsOneClass, closureUnreadable, noModulePaths, noSuchModule } from '../core/diagnostics/usageErrors.js';

export interface BuildOptions extends CommonOptions, LayoutOptions {
  /** Files (optionally `file.py:entry`), folders or globs. */
  paths: string[];
  /** Only look entries up: a miss is an error that names its cause (`run` mode). */
  noBuild?: boolean;
  /** Entry keys whose library failed to load, with why (marked bad, then rebuilt). */
  badEntries?: Record<string, string>;
  /** A JSON file: the resolved closure of the one orchestrated component targeted. */
  closure?: string;
}

/** `--closure FILE`: the closure of the one `file.py:Class` target. */
function readClosure(file: string, entries: Record<string, string[]>): Closure {
  const targets = Object.entries(entries).flatMap(([m, es]) => es.map((e) => [m, e]));
  if (targets.length !== 1) throw closureNeedsOneClass();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw closureUnreadable(file, (e as Error).message);
  }
  const closure = parseClosure(text, file);
  const [module, entry] = targets[0];
  if (path.resolve(closure.file) !== module || closure.class !== entry) {
    throw closureForOtherClass(file, closure.file, closure.class, module, entry);
  }
  return closure;
}

/** `file.py:entry` targets pick entries; other paths build every entry of their modules. */
function splitTargets(paths: string[]): { paths: string[]; entries: Record<string, string[]> } {
  const out: string[] = [];
  const entries: Record<string, string[]> = {};
  for (const p of paths) {
    const m = /^(.*\.py):([A-Za-z_][A-Za-z0-9_]*)$/.exec(p);
    if (!m) {
      out.push(p);
      continue;
    }
    const abs = path.resolve(m[1]);
    out.push(m[1]);
    (entries[abs] ??= []).push(m[2]);
  }
  return { paths: out, entries };
}

/** Expands CLI paths (files, folders, globs; `!glob` excludes) or the config's `modules` into module files. */
export async function resolveModules(paths: string[], configModules: string[], root: string): Promise<string[]> {
  const patterns: string[] = [];
  const files = new Set<string>();
  const cwd = process.cwd();
  const inputs = paths.length ? paths : configModules;
  const base = paths.length ? cwd : root;
  const ignore = ['**/node_modules/**', '**/.gt_cache*/**', '**/__pycache__/**'];
  for (const p of inputs) {
    if (p.startsWith('!')) {
      ignore.push(path.resolve(base, p.slice(1)).replace(/\\/g, '/'));
      continue;
    }
    const abs = path.resolve(base, p);
    let st;
    try {
      st = statSync(abs);
    } catch {
      st = undefined;
    }
    if (st?.isFile()) files.add(abs);
    else if (st?.isDirectory()) patterns.push(path.join(abs, '**/*.py').replace(/\\/g, '/'));
    else if (fg.isDynamicPattern(p)) patterns.push(path.resolve(base, p).replace(/\\/g, '/'));
    else throw noSuchModule(p);
  }
  if (patterns.length) for (const f of await fg(patterns, { absolute: true, ignore })) files.add(path.resolve(f));
  if (!files.size) throw noModulePaths(paths.length ? 'no modules matched' : 'no modules to build');
  return [...files].sort();
}

function describeBuild(result: BuildResult): string[] {
  return result.entries
    .filter((e) => e.status !== 'error')
    .map((e) => {
      const where = `${e.moduleRel}:${e.entry}`;
      if (e.status === 'hit') return `hit   ${where} (${e.key?.slice(0, 12)})`;
      if (e.status === 'miss') return `missing ${where}: ${e.reason}`;
      return `miss  ${where}: ${e.reason}; built in ${e.durationS.toFixed(2)} s (${e.key?.slice(0, 12)})`;
    });
}

/** `orch build`: builds every entry of every requested module (all of them, even after an error). */
export async function buildCommand(opts: BuildOptions): Promise<number> {
  const session = await openSession(opts);
  const targets = splitTargets(opts.paths);
  const modules = await resolveModules(targets.paths, session.config.modules, session.config.root);
  const layout = layoutRequest(opts, session.config);
  // one compiler (and cache folder) per code path; their builds run concurrently and
  // share the machine's compiler slots (core/toolchain/compilerSlots.ts)
  const compilers = layout ? layout.codepaths.map((cp) => new Compiler(session.config, session.compiler.pipeline, cp, layout.target)) : [session.compiler];
  // a live frame on a terminal's stderr; otherwise a plain line per entry as it finishes
  const display = opts.json || opts.quiet ? undefined : ProgressDisplay.forProcess();
  if (display) for (const c of compilers) new ProgressPlugin(display.onProgress).apply(c);
  const t0 = performance.now();
  const closure = opts.closure ? readClosure(opts.closure, targets.entries) : undefined;
  const request = { modules, entries: targets.entries, externals: session.externals, defines: session.defines, closure, mode: opts.noBuild ? ('lookup' as const) : ('build' as const), badEntries: opts.badEntries };
  let results: BuildResult[];
  try {
    results = await Promise.all(compilers.map((c) => c.build(request)));
  } finally {
    display?.stop();
  }
  const durationS = (performance.now() - t0) / 1000;
  const entries = results.flatMap((r, n) => r.entries.map((e) => ({ ...e, codepath: layout ? compilers[n].codepath : undefined })));
  const errors: Diagnostic[] = [];
  const seen = new Set<string>();
  const addError = (d: Diagnostic) => {
    // the same user error is found once per code path: report it once
    const text = formatDiagnostic(d);
    if (!seen.has(text)) errors.push(d);
    seen.add(text);
  };
  for (const e of entries) {
    e.errors.forEach(addError);
    if (e.status !== 'miss') continue;
    const d = cacheMiss(`${e.moduleRel}:${e.entry}${e.codepath ? ` (code path ${e.codepath})` : ''}`, e.reason, 'orch build, or ORCH_MODE=build-and-run').diagnostic;
    e.errors.push(d);
    addError(d);
  }
  // a module named on the command line that yields nothing would make the build a silent no-op
  for (const p of targets.paths) {
    const abs = path.resolve(p);
    if (!statSync(abs, { throwIfNoEntry: false })?.isFile()) continue;
    const rel = session.compiler.moduleRel(abs);
    if (!entries.some((e) => e.moduleRel === rel) && !errors.some((d) => d.loc && path.resolve(d.loc.file) === abs)) addError(noEntriesError(abs, p));
  }
  // cache.maxSize: what the build's eviction removed (each code path's compiler may have evicted)
  const evicted = results.flatMap((r) => r.evicted?.removed ?? []);
  const limit = session.config.cache?.maxBytes;
  if (evicted.length && !opts.quiet && !opts.json && limit !== undefined) {
    session.err(`note: the cache was over cache.maxSize (${formatBytes(limit)}): evicted ${evicted.length} least recently used variant(s), ${formatBytes(evicted.reduce((a, v) => a + v.bytes, 0))}`);
  }
  // stage:tap -> ms, summed over the code paths of a layout build
  const times = new Map<string, number>();
  for (const r of results) for (const [k, t] of r.passTimes) times.set(k, (times.get(k) ?? 0) + t);
  if (opts.timePasses) session.err(timePassesTable(times));
  const hitCount = entries.filter((e) => e.status === 'hit').length;
  if ((opts.printIrAfter?.length || opts.timePasses) && hitCount) {
    session.err(`note: ${hitCount} entr${hitCount === 1 ? 'y was a cache hit' : 'ies were cache hits'} and ran no pass (orch clean to rebuild, or orch run --mode python to see the IR)`);
  }
  for (const e of entries) if (e.status === 'hit' || e.status === 'built') printDiagnostics(e.warnings, opts.verbose);
  printDiagnostics(errors, opts.verbose);
  if (opts.json) {
    session.out(
      JSON.stringify({
        ...(layout ? { layout: layoutText(layout.target.layout), codepaths: layout.codepaths, rank_domain: layout.target.domain, halo: layout.target.halo } : {}),
        entries: entries.map((e) => ({
          module: e.moduleRel,
          entry: e.entry,
          ...(e.codepath ? { codepath: e.codepath } : {}),
          status: e.status === 'built' ? 'miss' : e.status === 'miss' ? 'missing' : e.status,
          reason: e.reason,
          key: e.key,
          dir: e.dir,
          library: e.library,
          symbol: e.symbol,
          binding: e.binding,
          interface: e.iface,
          duration_s: e.durationS,
        })),
        hits: entries.filter((e) => e.status === 'hit').length,
        misses: entries.filter((e) => e.status === 'built').length,
        errors: errors.map(jsonDiagnostic),
        duration_s: durationS,
        ...(opts.timePasses ? { pass_times_ms: Object.fromEntries(times) } : {}),
        ...(evicted.length ? { evicted: evicted.map((v) => ({ codepath: v.codepath, entry: v.entry, key: v.key, bytes: v.bytes })) } : {}),
      }),
    );
  } else if (!opts.quiet) {
    if (layout) session.out(`layout ${layoutText(layout.target.layout)} (rank domain ${layout.target.domain.join('x')}, halo ${layout.target.halo}): code paths ${layout.codepaths.join(', ')}`);
    if (display?.isLive || layout) for (const [n, r] of results.entries()) for (const l of describeBuild(r)) session.out(layout ? `[${compilers[n].codepath}] ${l}` : l);
    const hits = entries.filter((e) => e.status === 'hit').length;
    const built = entries.filter((e) => e.status === 'built').length;
    session.out(`${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}: ${hits} hit, ${built} built, ${errors.length} error(s) in ${durationS.toFixed(2)} s`);
  }
  // a command line the entries cannot take (--define of a name none has) is a usage error
  return exitStatus(errors);
}
