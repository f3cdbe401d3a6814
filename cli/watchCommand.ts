import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { findConfigFile } from '../core/config/loadConfig.js';
import { toDiagnostics } from '../core/Compiler.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { internalError } from '../core/diagnostics/codes.js';
import { ProgressPlugin } from '../core/ProgressPlugin.js';
import { Watching, type WatchRun } from '../core/Watching.js';
import { ProgressDisplay } from './ProgressDisplay.js';
import { resolveModules, type BuildOptions } from './buildCommand.js';
import { distinctDiagnostics, jsonDiagnostic, openSession } from './session.js';
import { printDiagnostics } from './failure.js';

interface WatchCommandOptions extends BuildOptions {
  /** Debounce in milliseconds (default 50). */
  aggregateTimeout?: number;
  poll?: number;
}

/** `orch build --watch`: one status line (or one JSON object) per build until interrupted. */
export async function watchCommand(opts: WatchCommandOptions): Promise<number> {
  const cwd = process.cwd();
  const configFile = opts.config ? path.resolve(opts.config) : findConfigFile(cwd);
  let root = configFile ? path.dirname(configFile) : cwd;
  const rel = (f: string) => {
    const r = path.relative(root, f);
    return r.startsWith('..') ? f : r;
  };
  const out = (t: string) => process.stdout.write(`${t}\n`);

  // in a terminal, long builds (the first one, a config reload) show the live frame too
  const display = opts.json || opts.quiet ? undefined : ProgressDisplay.forProcess();
  const live = display?.isLive ? display : undefined;

  const report = (run: WatchRun) => {
    live?.stop();
    const { result } = run;
    // counted as printed: once each
    const errors = distinctDiagnostics(result.errors);
    const built = result.entries.filter((e) => e.status === 'built');
    const hits = result.entries.filter((e) => e.status === 'hit').length;
    const rebuilt = [...new Set(built.map((e) => e.moduleRel))];
    for (const e of built) printDiagnostics(e.warnings, opts.verbose);
    printDiagnostics(errors, opts.verbose);
    if (opts.json) {
      out(
        JSON.stringify({
          changed: run.changed.map(rel),
          rebuilt,
          hits,
          misses: built.length,
          errors: errors.map(jsonDiagnostic),
          unchanged: run.unchanged,
          reloaded: run.reloaded,
          duration_s: result.durationS,
        }),
      );
      return;
    }
    if (opts.quiet) return;
    const what = run.changed.length ? `${list(run.changed.map(rel))} changed` : 'first build';
    const rebuiltText = rebuilt.length ? `rebuilt ${list(rebuilt)}` : 'nothing rebuilt';
    const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
    out(
      `[watch] ${what}${run.reloaded && run.changed.length ? ' (config reloaded)' : ''}: ${rebuiltText}; ${plural(hits, 'hit', 'hits')}, ${plural(built.length, 'miss', 'misses')}, ${plural(errors.length, 'error', 'errors')}${run.unchanged ? `, ${run.unchanged} unchanged` : ''}; ${result.durationS.toFixed(2)} s; watching ${run.watching} files`,
    );
  };

  const watching = new Watching(
    async () => {
      const session = await openSession(opts);
      root = session.config.root;
      if (live) new ProgressPlugin(live.onProgress).apply(session.compiler);
      const resolve = () => resolveModules(opts.paths, session.config.modules, session.config.root);
      const modules = await resolve();
      return {
        compiler: session.compiler,
        request: { modules, externals: session.externals, defines: session.defines, mode: 'build' },
        moduleDirs: moduleDirs(opts.paths, session.config.modules, session.config.root),
        resolveModules: resolve,
      };
    },
    (error, run, changed) => {
      if (run) return report(run);
      live?.stop();
      const diags = errorDiagnostics(error!);
      printDiagnostics(diags, opts.verbose);
      if (opts.json) out(JSON.stringify({ changed: changed.map(rel), rebuilt: [], hits: 0, misses: 0, errors: diags.map(jsonDiagnostic), unchanged: 0, reloaded: false, duration_s: 0 }));
      else if (!opts.quiet) out(`[watch] ${changed.length ? `${list(changed.map(rel))} changed` : 'first build'}: failed; fix the error above, watching goes on`);
    },
    { aggregateTimeout: opts.aggregateTimeout, poll: opts.poll },
    configFile ? [configFile] : [],
  );

  // Runs until interrupted; Ctrl-C closes the watchers and exits cleanly.
  return new Promise<number>((resolve) => {
    const stop = () => {
      void watching.close().then(() => resolve(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** Where new modules can appear: the base folders of the module globs, and folders given as paths. */
function moduleDirs(paths: string[], configModules: string[], root: string): string[] {
  const inputs = paths.length ? paths : configModules;
  const base = paths.length ? process.cwd() : root;
  const dirs: string[] = [];
  for (const p of inputs) {
    const abs = path.resolve(base, p);
    if (existsSync(abs) && statSync(abs).isDirectory()) dirs.push(abs);
    else if (fg.isDynamicPattern(p)) for (const t of fg.generateTasks([abs.replace(/\\/g, '/')])) dirs.push(path.resolve(t.base));
  }
  return [...new Set(dirs)];
}

/** A few names, or how many. */
function list(items: string[]): string {
  return items.length <= 3 ? items.join(', ') : `${items.slice(0, 2).join(', ')} and ${items.length - 2} more`;
}

/** Errors that stop a whole build (a broken config) as diagnostics; anything else is a bug. */
function errorDiagnostics(e: Error): Diagnostic[] {
  try {
    return toDiagnostics(e);
  } catch {
    return [internalError(`internal error (please report): ${e.stack ?? e.message}`).diagnostic];
  }
}
