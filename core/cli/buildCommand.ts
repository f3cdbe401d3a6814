import { statSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { fail } from '../diagnostics.js';
import type { BuildResult } from '../Compiler.js';
import { ProgressPlugin } from '../ProgressPlugin.js';
import { ProgressDisplay } from './ProgressDisplay.js';
import { jsonDiagnostic, openSession, printDiagnostics, timePassesTable, type CommonOptions } from './session.js';

export interface BuildOptions extends CommonOptions {
  paths: string[];
}

/** Expands CLI paths (files, folders, globs) or the config's `modules` into module files. */
export async function resolveModules(paths: string[], configModules: string[], root: string): Promise<string[]> {
  const patterns: string[] = [];
  const files = new Set<string>();
  const cwd = process.cwd();
  const inputs = paths.length ? paths : configModules;
  const base = paths.length ? cwd : root;
  for (const p of inputs) {
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
    else fail('E_USAGE_PATH', `no such module or folder: ${p}`, { hint: 'pass .py files, folders or globs' });
  }
  if (patterns.length) for (const f of await fg(patterns, { absolute: true, ignore: ['**/node_modules/**', '**/.gt_cache*/**', '**/__pycache__/**'] })) files.add(path.resolve(f));
  if (!files.size) fail('E_USAGE_PATH', paths.length ? 'no modules matched' : 'no modules to build', { hint: "pass module paths, or list them in orch.config.ts as modules: ['src/**/*.py']" });
  return [...files].sort();
}

export function describeBuild(result: BuildResult): string[] {
  return result.entries
    .filter((e) => e.status !== 'error')
    .map((e) => {
      const where = `${e.moduleRel}:${e.entry}`;
      if (e.status === 'hit') return `hit   ${where} (${e.key?.slice(0, 12)})`;
      return `miss  ${where}: ${e.reason}; built in ${e.durationS.toFixed(2)} s (${e.key?.slice(0, 12)})`;
    });
}

/** `orch build`: builds every entry of every requested module (all of them, even after an error). */
export async function buildCommand(opts: BuildOptions): Promise<number> {
  const session = await openSession(opts);
  const modules = await resolveModules(opts.paths, session.config.modules, session.config.root);
  // a live frame on a terminal's stderr; otherwise a plain line per entry as it finishes
  const display = opts.json || opts.quiet ? undefined : ProgressDisplay.forProcess();
  if (display) new ProgressPlugin(display.onProgress).apply(session.compiler);
  let result: BuildResult;
  try {
    result = await session.compiler.build({ modules, externals: session.externals, defines: session.defines, mode: 'build' });
  } finally {
    display?.stop();
  }
  if (opts.timePasses) session.err(timePassesTable(session.compiler, result.passTimes));
  const hits = result.entries.filter((e) => e.status === 'hit');
  if ((opts.printIrAfter?.length || opts.timePasses) && hits.length) {
    session.err(`note: ${hits.length} entr${hits.length === 1 ? 'y was a cache hit' : 'ies were cache hits'} and ran no pass (orch clean to rebuild, or orch run --mode python to see the IR)`);
  }
  for (const e of result.entries) if (e.status === 'hit' || e.status === 'built') printDiagnostics(e.warnings, opts.verbose);
  printDiagnostics(result.errors, opts.verbose);
  if (opts.json) {
    session.out(
      JSON.stringify({
        entries: result.entries.map((e) => ({ module: e.moduleRel, entry: e.entry, status: e.status === 'built' ? 'miss' : e.status, reason: e.reason, key: e.key, dir: e.dir, duration_s: e.durationS })),
        hits: result.entries.filter((e) => e.status === 'hit').length,
        misses: result.entries.filter((e) => e.status === 'built').length,
        errors: result.errors.map(jsonDiagnostic),
        duration_s: result.durationS,
      }),
    );
  } else if (!opts.quiet) {
    if (display?.isLive) for (const l of describeBuild(result)) session.out(l);
    const hits = result.entries.filter((e) => e.status === 'hit').length;
    const built = result.entries.filter((e) => e.status === 'built').length;
    session.out(`${result.entries.length} entr${result.entries.length === 1 ? 'y' : 'ies'}: ${hits} hit, ${built} built, ${result.errors.length} error(s) in ${result.durationS.toFixed(2)} s`);
  }
  return result.errors.length ? 1 : 0;
}
