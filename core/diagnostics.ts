import { readFileSync } from 'node:fs';
import type { Code } from './diagnostics/codes.js';
import type { SourceLoc } from './ir/types.js';

/**
 * User errors are data (Rollup style): a code, a message, a location, a code frame and a
 * hint. They are thrown as `OrchError` and printed by the CLI; anything else thrown is a bug.
 */
export interface Diagnostic {
  /** One of the codes of diagnostics/codes.ts (the docs table lists them all). */
  code: Code;
  severity: 'error' | 'warning';
  message: string;
  hint?: string;
  loc?: SourceLoc;
  /** Columns to underline after `loc.col` (at least one caret is drawn). */
  length?: number;
  frame?: string;
  plugin?: string;
  hook?: string;
  /** Raw tool output (compiler stderr), kept for --verbose. */
  detail?: string;
}

export class OrchError extends Error {
  readonly diagnostic: Diagnostic;
  constructor(diagnostic: Diagnostic) {
    super(diagnostic.message);
    this.name = 'OrchError';
    if (diagnostic.loc && diagnostic.frame === undefined) {
      diagnostic.frame = codeFrame(diagnostic.loc, diagnostic.length);
    }
    this.diagnostic = diagnostic;
  }
}

/** A collection of errors raised together (a build reports every broken module). */
export class OrchErrors extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map((d) => d.message).join('\n'));
    this.name = 'OrchErrors';
  }
}

/** The one way code creates a user error. */
/**
 * Throws `error` where a statement cannot (`x ?? fail(notFound(...))`); orch's own errors come
 * from the factories in core/diagnostics/ (codes.test keeps it so). The (code, message, opts)
 * form is public API for plugins, which report user errors with orch's codes (plugins.md).
 */
export function fail(error: OrchError): never;
export function fail(code: Code, message: string, opts?: { loc?: SourceLoc; hint?: string; length?: number; detail?: string }): never;
export function fail(error: OrchError | Code, message = '', opts: { loc?: SourceLoc; hint?: string; length?: number; detail?: string } = {}): never {
  if (error instanceof OrchError) throw error;
  throw new OrchError({ code: error, severity: 'error', message, ...opts });
}

const sourceCache = new Map<string, string[]>();

/** Registers in-memory source so frames work for files that are not on disk (tests, stdin). */
export function registerSource(file: string, text: string): void {
  sourceCache.set(file, text.split(/\r?\n/));
}

function sourceLines(file: string): string[] | undefined {
  let lines = sourceCache.get(file);
  if (!lines) {
    try {
      lines = readFileSync(file, 'utf8').split(/\r?\n/);
    } catch {
      return undefined;
    }
    sourceCache.set(file, lines);
  }
  return lines;
}

/** Two lines of context, a gutter and a caret under the location. */
function codeFrame(loc: SourceLoc, length = 1): string {
  const lines = sourceLines(loc.file);
  if (!lines || loc.line < 1 || loc.line > lines.length) return '';
  const first = Math.max(1, loc.line - 2);
  const last = Math.min(lines.length, loc.line + 1);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const marker = n === loc.line ? '>' : ' ';
    out.push(`${marker} ${String(n).padStart(width)} | ${lines[n - 1]}`);
    if (n === loc.line) {
      const pad = lines[n - 1].slice(0, Math.max(0, loc.col - 1)).replace(/[^\t]/g, ' ');
      out.push(`  ${' '.repeat(width)} | ${pad}${'^'.repeat(Math.max(1, length))}`);
    }
  }
  return out.join('\n');
}

/** Styles a part of a diagnostic for a terminal (the CLI passes one when colour is on). */
export type Paint = (role: 'error' | 'warning' | 'location' | 'caret' | 'hint', text: string) => string;

export function formatDiagnostic(d: Diagnostic, opts: { verbose?: boolean; paint?: Paint } = {}): string {
  const paint: Paint = opts.paint ?? ((_, text) => text);
  const where = d.loc ? `${paint('location', `${d.loc.file}:${d.loc.line}:${d.loc.col}:`)} ` : '';
  const origin = d.plugin ? ` [plugin ${d.plugin}${d.hook ? `, hook ${d.hook}` : ''}]` : '';
  const parts = [`${where}${paint(d.severity, `${d.severity} ${d.code}:`)} ${d.message}${origin}`];
  if (d.frame) parts.push(opts.paint ? d.frame.replace(/^(\s+\|\s*)(\^+)$/m, (_, gutter: string, carets: string) => gutter + paint('caret', carets)) : d.frame);
  if (d.hint) parts.push(`${paint('hint', 'hint:')} ${d.hint}`);
  if (d.detail && opts.verbose) parts.push(d.detail);
  return parts.join('\n');
}

/** Edit distance, for did-you-mean suggestions. */
function levenshtein(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0];
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j];
      dp[j] = Math.min(dp[j] + 1, dp[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length];
}

export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = levenshtein(name.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}
