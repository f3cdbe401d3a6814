import { execFileSync } from 'node:child_process';
import type { CodegenOptions } from '../core/config/types.js';
import type { Confirmation } from '../core/tune/confirmation.js';

/** What `orch tune --json` says, as far as the bench uses it. */
interface TuneJson {
  best: { changes: Partial<CodegenOptions>; label: string };
  confirmation?: Confirmation;
  rejected?: { label: string }[];
}

/** The bench's 'tuned/def' figures for one fixture. */
export interface TunedRow {
  /** The schedule orch tune wrote ('default' when the default stayed). */
  schedule: string;
  /** The default's time over the tuned schedule's, re-measured by the bench (median of `rounds`). */
  speedup_2t: number;
  /** Each round's ratio: the default and the tuned schedule measured in turn, each in its own process. */
  rounds: number[];
  /** The tuner's own confirmation of its pick (absent when the default won its search). */
  confirmed?: { speedup: number; required: number; spread: number; holds: boolean; label: string };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Runs `orch tune` (its own process, so OMP_NUM_THREADS holds) and, when it wrote a schedule,
 * times the default and that schedule again in `rounds` alternating pairs of processes
 * (`time(codegen)`: one bench measurement, the default for {}): measuring the default once
 * early and the tuned schedule once later put the machine's drift between them.
 */
export function tunedVsDefault(tuneArgs: string[], env: NodeJS.ProcessEnv, cwd: string, time: (codegen: Partial<CodegenOptions>) => number, rounds: number): TunedRow {
  const out = execFileSync(process.execPath, tuneArgs, { cwd, env, maxBuffer: 64 << 20 }).toString();
  const r = JSON.parse(out.trim().split('\n').pop()!) as TuneJson;
  const c = r.confirmation;
  const confirmed = c ? { speedup: c.speedup, required: c.required, spread: c.spread, holds: c.holds, label: Object.keys(r.best.changes).length ? r.best.label : (r.rejected?.[0]?.label ?? r.best.label) } : undefined;
  if (!Object.keys(r.best.changes).length) return { schedule: r.best.label, speedup_2t: 1, rounds: [], ...(confirmed ? { confirmed } : {}) };
  const ratios = remeasure(r.best.changes, time, rounds);
  return { schedule: r.best.label, speedup_2t: median(ratios), rounds: ratios, ...(confirmed ? { confirmed } : {}) };
}

/** Per round, the default's time over the tuned schedule's, the two measured in turn with the order flipped every round. */
export function remeasure(changes: Partial<CodegenOptions>, time: (codegen: Partial<CodegenOptions>) => number, rounds: number): number[] {
  const ratios: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let d: number;
    let t: number;
    if (i % 2 === 0) {
      d = time({});
      t = time(changes);
    } else {
      t = time(changes);
      d = time({});
    }
    ratios.push(d / t);
  }
  return ratios;
}

/** The table cell: the bench's ratio, and the tuner's confirmed one in brackets. */
export function tunedCell(t: TunedRow | undefined): string {
  if (!t) return '-';
  const c = t.confirmed;
  if (!c) return `${t.speedup_2t.toFixed(2)}x`;
  return `${t.speedup_2t.toFixed(2)}x (${c.speedup.toFixed(2)}x${c.holds ? '' : ' rej'})`;
}

/** The footnote: per fixture, what orch tune chose and how its confirmation went. */
export function tunedNote(fixture: string, t: TunedRow): string {
  const c = t.confirmed;
  const verdict = c ? `; confirmed ${c.label} ${c.speedup.toFixed(2)}x against ${c.required.toFixed(2)}x needed (noise ${(c.spread * 100).toFixed(1)} %): ${c.holds ? 'kept' : 'rejected'}` : '';
  const rounds = t.rounds.length ? `; bench ${t.rounds.map((x) => x.toFixed(2)).join('/')}` : '';
  return `${fixture} ${t.schedule}${verdict}${rounds}`;
}
