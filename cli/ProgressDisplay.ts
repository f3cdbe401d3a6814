import { createLogUpdate } from 'log-update';
import type { EntryResult } from '../core/Compiler.js';
import { STAGES } from '../core/Compilation.js';
import type { ProgressEvent, ProgressState } from '../core/ProgressPlugin.js';

/** A stream the display writes to (stderr in a terminal, stdout otherwise). */
interface ProgressStream extends NodeJS.WritableStream {
  isTTY?: boolean;
  columns?: number;
}

/**
 * How a build shows its progress. In a terminal: a live frame (redrawn in place by
 * log-update) with a bar, the number of entries in each stage and the entries being
 * worked on. Without one (CI, pipes): one plain line per finished entry.
 */
export class ProgressDisplay {
  private readonly live: ReturnType<typeof createLogUpdate> | undefined;
  private last: ProgressState | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** Live on stderr when it is a terminal with a size; plain lines on stdout otherwise. */
  static forProcess(): ProgressDisplay {
    const tty = !!process.stderr.isTTY && (process.stderr.columns ?? 1) > 0;
    return new ProgressDisplay(tty ? process.stderr : process.stdout);
  }

  get isLive(): boolean {
    return !!this.live;
  }

  constructor(
    private readonly stream: ProgressStream,
    /** In a terminal, draw nothing for builds shorter than this (no flicker on hits). */
    private readonly delayMs = 300,
  ) {
    // a terminal that reports no size (some CI ptys) gets plain lines: a frame would be cropped away
    if (stream.isTTY && (stream.columns ?? 1) > 0) this.live = createLogUpdate(stream, { defaultWidth: 100 });
  }

  /** For ProgressPlugin. */
  readonly onProgress = (event: ProgressEvent, state: ProgressState): void => {
    this.last = state;
    if (this.live) {
      // redraw at most every 100 ms; the timer also keeps the elapsed times moving
      this.timer ??= setInterval(() => this.draw(), 100);
      if (event.type === 'finish' && state.done === state.total) this.draw();
      return;
    }
    if (event.type === 'finish') this.stream.write(`[${state.done}/${state.total}] ${entryLine(event.result)}\n`);
  };

  /** Removes the live frame (before the final report is printed). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.live?.clear();
  }

  private draw(): void {
    const s = this.last;
    if (!s || !this.live) return;
    const now = performance.now();
    if (now - s.startedAt < this.delayMs) return;
    this.live(frame(s, now, this.stream.columns ?? 100).join('\n'));
  }
}

/** One finished entry, as a plain line. */
function entryLine(e: EntryResult): string {
  const where = `${e.moduleRel}:${e.entry}`;
  if (e.status === 'hit') return `hit   ${where} (${e.key?.slice(0, 12)})`;
  if (e.status === 'built') return `miss  ${where}: ${e.reason}; built in ${e.durationS.toFixed(2)} s (${e.key?.slice(0, 12)})`;
  if (e.status === 'error') return `error ${where}: ${e.errors[0]?.code ?? 'failed'}`;
  return `miss  ${where}: ${e.reason}`;
}

const BAR = 24;

/** The live frame: bar and counts, entries per stage, then the entries in flight. */
export function frame(s: ProgressState, now: number, columns: number): string[] {
  const filled = s.total ? Math.round((BAR * s.done) / s.total) : 0;
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}]`;
  const secs = ((now - s.startedAt) / 1000).toFixed(1);
  const lines = [`${bar} ${s.done}/${s.total} entries: ${s.hits} hit, ${s.built} built, ${s.errors} error(s); ${secs} s`];
  const perStage = new Map<string, number>();
  for (const a of s.active) perStage.set(a.stage, (perStage.get(a.stage) ?? 0) + 1);
  const order = ['lookup', ...STAGES] as string[];
  const stages = [...perStage.entries()].sort((a, b) => order.indexOf(a[0]) - order.indexOf(b[0]));
  if (stages.length) lines.push(`  ${stages.map(([k, n]) => `${k} ${n}`).join(' | ')}`);
  const shown = s.active.slice(0, 8);
  for (const a of shown) {
    const text = `  ${a.stage.padEnd(16)} ${a.ref.moduleRel}:${a.ref.entry} (${((now - a.since) / 1000).toFixed(1)} s)`;
    lines.push(text.length > columns ? `${text.slice(0, columns - 1)}…` : text);
  }
  if (s.active.length > shown.length) lines.push(`  … and ${s.active.length - shown.length} more`);
  return lines;
}
