import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { PipelineOptions } from '../Compilation.js';
import { Compiler } from '../Compiler.js';
import type { ScheduleKnob } from '../config/ScheduleKnob.js';
import type { CodegenOptions, ResolvedConfig } from '../config/types.js';
import { OrchError, OrchErrors, formatDiagnostic } from '../diagnostics.js';
import type { Value } from '../frontend/values.js';
import { Interpreter } from '../interpreter/Interpreter.js';
import { buildEntryArgs, type EntryArgs, type EntryInterface } from '../runtime/callArgs.js';
import { EntryRunner, type ReadyEntry } from '../runtime/EntryRunner.js';
import { cloneArray, type NDArray } from '../runtime/ndarray.js';
import { syntheticInputs } from '../runtime/syntheticInputs.js';
import { bitwiseDifference, type BitwiseDifference } from './bitwiseDifference.js';
import { interleavedTimes, timeStats, withLibraries, type TimeStats } from './interleavedTimes.js';
import { confirmationLine, confirmPick, DEFAULT_CONFIRM_POLICY, type ConfirmPolicy, type Confirmation } from './confirmation.js';
import { defaultScheduleFails, noScheduleMatches, nothingToTune } from '../diagnostics/tuneErrors.js';

/** What to tune: one entry, at one domain, on this machine. */
export interface TuneRequest {
  /** The configuration the search starts from (its preset and codegen options are the default). */
  config: ResolvedConfig;
  pipeline: PipelineOptions;
  module: string;
  entry: string;
  externals: Record<string, Value>;
  defines: Record<string, number | boolean>;
  /** The compute domain NX, NY, NZ; fields get `halo` points more on each side along I and J. */
  domain: [number, number, number];
  halo: number;
  scalars: Record<string, number | boolean>;
  /** Seconds after which no further candidate is started (the default schedule always runs). */
  budgetS: number;
  /** Timed calls per candidate (their median decides). */
  runs: number;
  /** The knobs to search; default: the backend's (Backend.scheduleKnobs). Tests pass their own. */
  knobs?: readonly ScheduleKnob[];
  /** How the pick is confirmed against the default (confirmation.ts); calls per block default to `runs`. */
  confirm?: Partial<ConfirmPolicy>;
  /**
   * Times one call of the candidate with this label, in seconds, in place of its library
   * (the search's and the confirmation's timings; the bitwise check still runs the library).
   * Tests pass a fake clock.
   */
  clock?: (label: string) => number;
  log?: (line: string) => void;
}

export type CandidateStatus = 'timed' | 'mismatch' | 'failed' | 'same-code';

/** One schedule tried: the options it changes from the default, and what came of it. */
export interface Candidate {
  /** The codegen options that differ from the default ({} for the default itself). */
  changes: Partial<CodegenOptions>;
  label: string;
  status: CandidateStatus;
  /** Seconds: median, fastest and slowest of the timed calls (status 'timed'). */
  median_s?: number;
  min_s?: number;
  max_s?: number;
  runs?: number;
  /** status 'mismatch': where it first differed from the interpreter. */
  mismatch?: BitwiseDifference;
  /** status 'failed': the build's or the call's error. */
  error?: string;
  /** status 'same-code': the label of the candidate whose generated code it shares. */
  sameAs?: string;
  /** The cache key of its build. */
  key?: string;
}

export interface TuneResult {
  entry: string;
  module: string;
  domain: [number, number, number];
  /** The default schedule (the config's own options). */
  base: Candidate;
  /** The fastest candidate that matched the interpreter bit for bit. */
  best: Candidate;
  /** best's codegen options in full. */
  bestCodegen: CodegenOptions;
  candidates: Candidate[];
  /**
   * The default and the search's winner timed again in alternating blocks; the winner
   * stands only if it beat the default in every block and by more than the noise
   * (confirmation.ts), else the next fastest is tried (up to MAX_CONFIRMED). This is the
   * confirmation of `best` when one held, else the search winner's. Absent when the default
   * won the search or did not match.
   */
  confirmation?: Confirmation;
  /** The candidates the confirmation did not hold up, the search's winner first (best is the next that held, or the default). */
  rejected?: Candidate[];
  /** Candidates never tried because the budget ran out. */
  skipped: number;
  elapsed_s: number;
}

/** How many candidates, the search's winner first, are confirmed against the default before it stays. */
const MAX_CONFIRMED = 3;

function labelOf(changes: Partial<CodegenOptions>): string {
  const parts = Object.entries(changes).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('x') : String(v)}`);
  return parts.length ? parts.join(' ') : 'default';
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function cloneArgs(args: EntryArgs): EntryArgs {
  const out: EntryArgs = {};
  for (const [k, v] of Object.entries(args)) out[k] = typeof v === 'object' ? cloneArray(v) : v;
  return out;
}

function fieldsOf(iface: EntryInterface, args: EntryArgs): Record<string, NDArray> {
  const out: Record<string, NDArray> = {};
  for (const p of iface.params) if (p.kind === 'field') out[p.name] = args[p.name] as NDArray;
  return out;
}

/** A hash of the generated sources in an entry's folder: candidates that generate the same code need no second timing. */
function codeHash(dir: string): string {
  const h = createHash('sha256');
  for (const f of readdirSync(dir).filter((f) => /\.(cpp|cu|h)$/.test(f)).sort()) h.update(f).update(readFileSync(path.join(dir, f)));
  return h.digest('hex');
}

function errorText(e: unknown): string {
  if (e instanceof OrchError) return formatDiagnostic(e.diagnostic);
  if (e instanceof OrchErrors) return e.diagnostics.map((d) => formatDiagnostic(d)).join('\n');
  return (e as Error)?.message ?? String(e);
}

/**
 * The autotuner: searches the backend's schedule knobs one at a time (coordinate descent:
 * every value of a knob around the best so far, keep the fastest, next knob, rounds until
 * nothing improves or the budget is spent). Each knob's candidates build in parallel (the
 * compiler slots bound them to the cores; builds go through the cache, keyed by their
 * options); each built candidate runs once on synthetic inputs and must equal the
 * interpreter's result bit for bit, or it is refused and never timed; the rest are timed
 * one after another, median of `runs` calls.
 */
export class Tuner {
  private readonly start = performance.now();
  private readonly tried = new Map<string, Candidate>();
  private readonly byCode = new Map<string, Candidate>();
  /** The builds of the candidates timed, by label (the confirmation times two of them again). */
  private readonly entries = new Map<string, ReadyEntry>();
  private skipped = 0;
  private reference: { iface: EntryInterface; args: EntryArgs; expected: Record<string, NDArray> } | undefined;

  private readonly req: TuneRequest;

  constructor(req: TuneRequest) {
    // candidates are built as asked: a schedule recorded by an earlier --write-cache would override them
    this.req = { ...req, pipeline: { ...req.pipeline, ignoreTuned: true } };
  }

  private log(line: string): void {
    this.req.log?.(line);
  }

  private elapsed(): number {
    return (performance.now() - this.start) / 1000;
  }

  async run(): Promise<TuneResult> {
    const { req } = this;
    const knobs = req.knobs ?? req.config.backend.scheduleKnobs ?? [];
    if (!knobs.length) throw nothingToTune(req.config.preset.name, req.config.backend.name);
    const base = (await this.evaluate([{}]))[0];
    if (base.status !== 'timed' && base.status !== 'mismatch') throw defaultScheduleFails(req.entry, base.error);
    let lead: Partial<CodegenOptions> = {};
    // rounds until no knob changes the winner (a knob's best value may depend on another's)
    for (let changed = true; changed; ) {
      changed = false;
      for (const knob of knobs) {
        const current = { ...req.config.codegen, ...lead };
        const values = knob.values({ base: req.config.codegen, domain: req.domain }).filter((v) => !sameValue(v, current[knob.option]));
        const batch = values.map((v) => this.normalized({ ...lead, [knob.option]: v }));
        const results = await this.evaluate(batch);
        const winner = this.fastest(results);
        if (winner && this.improves(winner, this.tried.get(labelOf(lead)))) {
          lead = winner.changes;
          changed = true;
        }
      }
    }
    const candidates = [...this.tried.values()];
    const searched = this.tried.get(labelOf(lead));
    const winner = searched?.status === 'timed' ? searched : this.fastest(candidates);
    if (!winner) {
      throw noScheduleMatches(req.entry, base.mismatch ? `field '${base.mismatch.field}' differs at ${base.mismatch.count} point(s)` : base.error);
    }
    let best = winner;
    let confirmation: Confirmation | undefined;
    const rejected: Candidate[] = [];
    if (winner !== base && base.status === 'timed') {
      // the search's winner first, then the next fastest that beat the default in the
      // search: a winner that was only lucky must not cost a real gain behind it
      const contenders = [winner, ...candidates.filter((c) => c.status === 'timed' && c !== winner && c !== base && c.median_s! < base.median_s!).sort((a, b) => a.median_s! - b.median_s!)].slice(0, MAX_CONFIRMED);
      best = base;
      for (const c of contenders) {
        const result = this.confirm(base, c);
        this.log(confirmationLine(c.label, result));
        confirmation ??= result;
        if (result.holds) {
          best = c;
          confirmation = result;
          break;
        }
        rejected.push(c);
      }
    }
    return { entry: req.entry, module: req.module, domain: req.domain, base, best, bestCodegen: { ...req.config.codegen, ...best.changes }, candidates, ...(confirmation ? { confirmation } : {}), ...(rejected.length ? { rejected } : {}), skipped: this.skipped, elapsed_s: this.elapsed() };
  }

  /** Times the default and `c` in alternating blocks (confirmation.ts), on the fake clock where the request has one. */
  private confirm(base: Candidate, c: Candidate): Confirmation {
    const policy: ConfirmPolicy = { ...DEFAULT_CONFIRM_POLICY, callsPerBlock: this.req.runs, ...this.req.confirm };
    const clock = this.req.clock;
    if (clock) return confirmPick((i) => clock(i === 0 ? base.label : c.label), policy);
    const entries = [this.entries.get(base.label)!, this.entries.get(c.label)!];
    return withLibraries(entries, () => cloneArgs(this.reference!.args), (time) => confirmPick(time, policy));
  }

  /** Only the options that differ from the config's, so equal schedules get one label. */
  private normalized(changes: Partial<CodegenOptions>): Partial<CodegenOptions> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(changes)) if (!sameValue(v, (this.req.config.codegen as unknown as Record<string, unknown>)[k])) out[k] = v;
    return out as Partial<CodegenOptions>;
  }

  /**
   * Whether `c` takes the lead of the search from `lead`: by more than the least gain the
   * confirmation asks for, so the search does not wander on the machine's noise.
   */
  private improves(c: Candidate, lead: Candidate | undefined): boolean {
    if (lead?.status !== 'timed') return true;
    const minGain = this.req.confirm?.minGain ?? DEFAULT_CONFIRM_POLICY.minGain;
    return c.median_s! * (1 + minGain) < lead.median_s!;
  }

  /** The timed candidate with the smallest median. */
  private fastest(cs: Candidate[]): Candidate | undefined {
    return cs.filter((c) => c.status === 'timed').sort((a, b) => a.median_s! - b.median_s!)[0];
  }

  /**
   * Builds, checks and times the candidates not tried yet, one at a time: builds of one
   * entry take its cache lock in turn anyway, and timing next to a running compiler
   * would measure the compiler.
   */
  private async evaluate(batch: Partial<CodegenOptions>[]): Promise<Candidate[]> {
    const fresh = batch.filter((c, i) => !this.tried.has(labelOf(c)) && batch.findIndex((d) => labelOf(d) === labelOf(c)) === i);
    for (const changes of fresh) {
      // the default always runs: it is what the others are measured against
      if (Object.keys(changes).length && this.elapsed() >= this.req.budgetS) {
        this.skipped++;
        continue;
      }
      const c = await this.check(changes, await this.build(changes));
      this.tried.set(c.label, c);
      this.log(this.describe(c));
    }
    return batch.map((c) => this.tried.get(labelOf(c))).filter((c): c is Candidate => !!c);
  }

  private async build(changes: Partial<CodegenOptions>): Promise<ReadyEntry | Error> {
    const { req } = this;
    const config: ResolvedConfig = { ...req.config, codegen: { ...req.config.codegen, ...changes } };
    try {
      return await new EntryRunner(new Compiler(config, req.pipeline), { externals: req.externals, defines: req.defines }).prepare(req.module, req.entry, 'build');
    } catch (e) {
      return e instanceof Error ? e : new Error(String(e));
    }
  }

  /** The interpreter's result on the synthetic inputs, computed once (from the first build's call interface). */
  private async referenceFor(iface: EntryInterface) {
    if (this.reference) return this.reference;
    const { req } = this;
    const [nx, ny, nz] = req.domain;
    const h = req.halo;
    const fields = syntheticInputs(iface, [nx + 2 * h, ny + 2 * h, nz], {});
    const spec = iface.entryKind === 'stencil' ? { fields, scalars: req.scalars, origin: [h, h, 0], domain: [nx, ny, nz] } : { fields, scalars: req.scalars };
    const args = buildEntryArgs(iface, spec);
    const python = new Compiler(req.config, { ...req.pipeline, stopAfter: undefined });
    const program = await new EntryRunner(python, { externals: req.externals, defines: req.defines }).program(req.module, req.entry);
    const out = cloneArgs(args);
    new Interpreter(program, { maxWhileIterations: req.config.codegen.maxWhileIterations }).run(out);
    this.reference = { iface, args, expected: fieldsOf(iface, out) };
    return this.reference;
  }

  private async check(changes: Partial<CodegenOptions>, built: ReadyEntry | Error): Promise<Candidate> {
    const label = labelOf(changes);
    if (built instanceof Error) return { changes, label, status: 'failed', error: errorText(built) };
    const key = built.result.key;
    const dir = built.result.dir ?? path.dirname(built.result.library!);
    const code = codeHash(dir);
    const twin = this.byCode.get(code);
    if (twin) return { changes, label, status: 'same-code', sameAs: twin.label, key };
    const ref = await this.referenceFor(built.iface);
    const runner = new EntryRunner(new Compiler(this.req.config, this.req.pipeline));
    const checked = cloneArgs(ref.args);
    let stats: TimeStats;
    try {
      runner.run(built, checked);
      const mismatch = bitwiseDifference(ref.expected, fieldsOf(built.iface, checked));
      if (mismatch) {
        // refused: never timed, so it can never win
        const c: Candidate = { changes, label, status: 'mismatch', mismatch, key };
        this.byCode.set(code, c);
        return c;
      }
      const clock = this.req.clock;
      [stats] = clock ? [timeStats(Array.from({ length: this.req.runs }, () => clock(label)))] : interleavedTimes([built], () => cloneArgs(ref.args), this.req.runs);
    } catch (e) {
      return { changes, label, status: 'failed', error: errorText(e), key };
    }
    const c: Candidate = { changes, label, status: 'timed', ...stats, key };
    this.byCode.set(code, c);
    this.entries.set(label, built);
    return c;
  }

  private describe(c: Candidate): string {
    const ms = (s: number | undefined) => `${((s ?? NaN) * 1e3).toFixed(3)} ms`;
    switch (c.status) {
      case 'timed':
        return `  ${c.label.padEnd(32)} ${ms(c.median_s)} median of ${c.runs} (${ms(c.min_s)} .. ${ms(c.max_s)})`;
      case 'mismatch':
        return `  ${c.label.padEnd(32)} REFUSED: differs from the interpreter in '${c.mismatch!.field}' at ${c.mismatch!.count} point(s) (first at element ${c.mismatch!.index}: ${String(c.mismatch!.actual)}, expected ${String(c.mismatch!.expected)})`;
      case 'same-code':
        return `  ${c.label.padEnd(32)} same generated code as ${c.sameAs}`;
      default:
        return `  ${c.label.padEnd(32)} failed: ${c.error?.split('\n')[0]}`;
    }
  }
}
