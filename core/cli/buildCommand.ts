import { statSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { fail, OrchError } from '../diagnostics.js';
import type { BuildResult } from '../Compiler.js';
import { openSession, printDiagnostics, timePassesTable, type CommonOptions } from './session.js';

export interface BuildOptions extends CommonOptions {
  /** Files (optionally `file.py:entry`), folders or globs. */
  paths: string[];
  /** Only look entries up: a miss is an error that names its cause (`run` mode). */
  noBuild?: boolean;
}

/** `file.py:entry` targets pick entries; other paths build every entry of their modules. */
export function splitTargets(paths: string[]): { paths: string[]; entries: Record<string, string[]> } {
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
      if (e.status === 'miss') return `missing ${where}: ${e.reason}`;
      return `miss  ${where}: ${e.reason}; built in ${e.durationS.toFixed(2)} s (${e.key?.slice(0, 12)})`;
    });
}

/** `orch build`: builds every entry of every requested module (all of them, even after an error). */
export async function buildCommand(opts: BuildOptions): Promise<number> {
  const session = await openSession(opts);
  const targets = splitTargets(opts.paths);
  const modules = await resolveModules(targets.paths, session.config.modules, session.config.root);
  const result = await session.compiler.build({ modules, entries: targets.entries, externals: session.externals, defines: session.defines, mode: opts.noBuild ? 'lookup' : 'build' });
  for (const e of result.entries) {
    if (e.status !== 'miss') continue;
    const d = new OrchError({
      code: 'E_CACHE_MISS',
      severity: 'error',
      message: `no usable cache entry for ${e.moduleRel}:${e.entry}: ${e.reason}`,
      hint: 'build it first (orch build, or ORCH_MODE=build-and-run)',
    }).diagnostic;
    e.errors.push(d);
    result.errors.push(d);
  }
  if (opts.timePasses) session.err(timePassesTable(session.compiler, result.passTimes));
  for (const e of result.entries) if (e.status === 'hit' || e.status === 'built') printDiagnostics(e.warnings, opts.verbose);
  printDiagnostics(result.errors, opts.verbose);
  if (opts.json) {
    session.out(
      JSON.stringify({
        entries: result.entries.map((e) => ({
          module: e.moduleRel,
          entry: e.entry,
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
        hits: result.entries.filter((e) => e.status === 'hit').length,
        misses: result.entries.filter((e) => e.status === 'built').length,
        errors: result.errors.map((d) => ({ code: d.code, message: d.message, file: d.loc?.file, line: d.loc?.line, col: d.loc?.col })),
        duration_s: result.durationS,
      }),
    );
  } else if (!opts.quiet) {
    for (const l of describeBuild(result)) session.out(l);
    const hits = result.entries.filter((e) => e.status === 'hit').length;
    const built = result.entries.filter((e) => e.status === 'built').length;
    session.out(`${result.entries.length} entr${result.entries.length === 1 ? 'y' : 'ies'}: ${hits} hit, ${built} built, ${result.errors.length} error(s) in ${result.durationS.toFixed(2)} s`);
  }
  return result.errors.length ? 1 : 0;
}
