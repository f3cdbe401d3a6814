import path from 'node:path';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from './toolset.js';
import type { ResolvedConfig } from '../core/config/types.js';
import { formatDiagnostic, type Diagnostic } from '../core/diagnostics.js';
import { parseDefine, parseExternals } from '../core/frontend/externalsJson.js';
import type { Value } from '../core/frontend/values.js';
import { targetNotModule } from '../core/diagnostics/usageErrors.js';

/** Options every command that builds shares (parsed by bin/orch.ts). */
export interface CommonOptions {
  preset?: string;
  externals?: string;
  define?: string[];
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  printIrAfter?: string[];
  timePasses?: boolean;
  verifyIr?: boolean;
  config?: string;
  /** turn the debug checkers on */
  debug?: boolean;
}

interface Session {
  config: ResolvedConfig;
  compiler: Compiler;
  externals: Record<string, Value>;
  defines: Record<string, number | boolean>;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Config + compiler + parsed externals/defines, as every build-like command needs. */
export async function openSession(opts: CommonOptions): Promise<Session> {
  const config = await resolveConfig({ preset: opts.preset, debug: opts.debug, configFile: opts.config ? path.resolve(opts.config) : undefined });
  if (opts.verifyIr) config.verifyIR = true;
  const out = (t: string) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`);
  const err = (t: string) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`);
  const compiler = new Compiler(config, {
    verifyIR: config.verifyIR,
    printIrAfter: opts.printIrAfter ?? [],
    timePasses: !!opts.timePasses,
    print: err,
  });
  const externals = { ...parseExternals(JSON.stringify(config.externals)), ...(opts.externals ? parseExternals(opts.externals) : {}) };
  const defines: Record<string, number | boolean> = { ...config.defines };
  for (const d of opts.define ?? []) {
    const [k, v] = parseDefine(d);
    defines[k] = v;
  }
  return { config, compiler, externals, defines, out, err };
}

/** A diagnostic as --json prints it. */
export function jsonDiagnostic(d: Diagnostic) {
  return { code: d.code, severity: d.severity, message: d.message, file: d.loc?.file, line: d.loc?.line, col: d.loc?.col, hint: d.hint, plugin: d.plugin, hook: d.hook };
}

/** Each diagnostic once: modules that import one broken module all report its error. */
export function distinctDiagnostics(diags: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diags.filter((d) => {
    const text = formatDiagnostic(d);
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}

/** `path/to/module.py:entry` -> [absolute module, entry?]. */
export function parseTarget(target: string): [string, string | undefined] {
  const m = /^(.*\.py):([A-Za-z_][A-Za-z0-9_]*)$/.exec(target);
  const file = m ? m[1] : target;
  if (!file.endsWith('.py')) throw targetNotModule(target);
  return [path.resolve(file), m ? m[2] : undefined];
}

/** --time-passes: every tap (`stage:tap`), slowest first. */
export function timePassesTable(times: Map<string, number>): string {
  const rows = [...times.entries()].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((a, [, t]) => a + t, 0);
  const lines = ['pass timings (ms):', ...rows.map(([k, t]) => `  ${t.toFixed(2).padStart(10)}  ${((100 * t) / (total || 1)).toFixed(1).padStart(5)}%  ${k}`), `  ${total.toFixed(2).padStart(10)}  total`];
  return lines.join('\n');
}
