import { existsSync } from 'node:fs';
import path from 'node:path';
import { OrchErrors } from '../core/diagnostics.js';
import type { Compiler } from '../core/Compiler.js';
import { writeTunedSchedule } from '../core/cache/tunedSchedules.js';
import type { Value } from '../core/frontend/values.js';
import { writeFileAtomic } from '../core/runtime/atomicWrite.js';
import { Tuner, type TuneResult } from '../core/tune/Tuner.js';
import { PRESET_NAME, presetFileName, presetModule, tunedPreset } from '../core/tune/tunedPreset.js';
import { parseIntList, parseScalars } from './callOptions.js';
import { openSession, parseTarget, type CommonOptions } from './session.js';
import { soleEntry } from './soleEntry.js';
import { presets } from '../presets/index.js';
import { presetWithPlugins, tuneOutputUnwritable, tunedScheduleUnwritable } from '../core/diagnostics/tuneErrors.js';
import { noSuchModulePath, tuneDomainNotSizes, tuneHaloNotWhole, tuneNeedsDomain, tuneOptionNotPositive, writePresetAndCache, writePresetNotName, writePresetShadows } from '../core/diagnostics/usageErrors.js';

export interface TuneOptions extends CommonOptions {
  target: string;
  domain?: string;
  halo?: number;
  scalars?: string;
  /** As written (checked here): seconds, and timed calls per candidate. */
  budgetS?: string;
  runs?: string;
  writePreset?: string;
  writeCache?: boolean;
}

function positive(text: string | undefined, option: string, fallback: number, integer: boolean): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw tuneOptionNotPositive(option, integer, text, fallback);
  }
  return n;
}

/** --domain: three sizes above 0 (tuning an empty domain times nothing). */
function parseDomain(text: string | undefined): [number, number, number] {
  if (text === undefined) throw tuneNeedsDomain();
  const d = parseIntList(text, 'domain');
  if (d.length !== 3 || d.some((n) => n <= 0)) throw tuneDomainNotSizes(text);
  return d as [number, number, number];
}

/**
 * `orch tune file.py[:entry] --domain NX,NY,NZ`: searches the preset's schedule options for
 * the fastest that matches the interpreter bit for bit (core/tune/Tuner.ts), prints every
 * candidate, and with --write-preset NAME writes the winner as `NAME.preset.ts` beside the
 * config.
 */
export async function tuneCommand(opts: TuneOptions): Promise<number> {
  // the command line is checked whole before anything is built
  const [file, entryName] = parseTarget(opts.target);
  const domain = parseDomain(opts.domain);
  const budgetS = positive(opts.budgetS, 'budget-s', 300, false);
  const runs = positive(opts.runs, 'runs', 20, true);
  const halo = opts.halo ?? 3;
  if (!Number.isInteger(halo) || halo < 0) throw tuneHaloNotWhole(opts.halo);
  const scalars = parseScalars(opts.scalars);
  if (opts.writePreset !== undefined && opts.writeCache) throw writePresetAndCache();
  const name = opts.writePreset;
  if (name !== undefined && !PRESET_NAME.test(name)) throw writePresetNotName(name);
  if (name !== undefined && presets[name]) throw writePresetShadows(name);
  if (!existsSync(file)) throw noSuchModulePath(path.relative(process.cwd(), file) || file);
  const session = await openSession(opts);
  const entry = entryName ?? (await soleEntry(session.config.pythonPath, file));
  const log = opts.quiet || opts.json ? undefined : session.err;
  log?.(`orch tune ${entry}: ${domain.join('x')} (halo ${halo}), preset ${session.config.preset.name}, budget ${budgetS} s, ${runs} timed calls per schedule`);
  const result = await new Tuner({
    config: session.config,
    pipeline: { verifyIR: session.config.verifyIR, printIrAfter: opts.printIrAfter ?? [], timePasses: false, print: session.err },
    module: file,
    entry,
    externals: session.externals,
    defines: session.defines,
    domain,
    halo,
    scalars,
    budgetS,
    runs,
    log,
  }).run();
  let written: string | undefined;
  if (name !== undefined) written = writePreset(session.config, name, result, file, opts);
  if (opts.writeCache) written = await writeCache(session.compiler, result, file, session);
  if (opts.json) session.out(JSON.stringify({ ...result, written }));
  else if (!opts.quiet) session.out(summary(result, written, opts.writeCache ? `recorded in ${written}: orch build of ${result.entry} with preset ${session.config.preset.name} uses it` : undefined));
  return 0;
}

function summary(r: TuneResult, written: string | undefined, recorded?: string): string {
  const ms = (s: number | undefined) => `${((s ?? NaN) * 1e3).toFixed(3)} ms`;
  const refused = r.candidates.filter((c) => c.status === 'mismatch').length;
  const c = r.confirmation;
  const rejected = (r.rejected ?? []).map((x) => x.label);
  const confirmedLabel = r.best !== r.base ? r.best.label : rejected[0];
  const confirmed = c
    ? `; confirmed in ${c.policy.blocks} alternating blocks of ${c.policy.callsPerBlock} calls: default ${ms(c.default.median_s)} (${ms(c.default.min_s)} .. ${ms(c.default.max_s)}), ${confirmedLabel} ${ms(c.best.median_s)} (${ms(c.best.min_s)} .. ${ms(c.best.max_s)}), ${c.speedup.toFixed(2)}x against ${c.required.toFixed(2)}x needed (noise ${(c.spread * 100).toFixed(1)} %)`
    : '';
  const notHeld = rejected.length ? `${rejected.join(', ')} did not hold up` : '';
  const head = c
    ? r.best === r.base
      ? `${r.entry}: the default stays: ${notHeld}${confirmed}`
      : `${r.entry}: best ${r.best.label}${notHeld ? ` (${notHeld})` : ''}${confirmed}`
    : `${r.entry}: ${r.best === r.base ? 'the default is the fastest' : `best ${r.best.label}`}, ${ms(r.best.median_s)} median (${ms(r.best.min_s)} .. ${ms(r.best.max_s)})${r.base.status === 'timed' ? '' : '; the default did not match the interpreter'}`;
  const lines = [
    head,
    `${r.candidates.length} schedule(s) tried in ${r.elapsed_s.toFixed(1)} s${refused ? `, ${refused} refused (differed from the interpreter)` : ''}${r.skipped ? `, ${r.skipped} left untried (budget spent)` : ''}`,
  ];
  if (recorded) lines.push(recorded);
  else if (written) lines.push(`wrote ${written}`);
  return lines.join('\n');
}

/**
 * --write-cache: records the winner in the entry's cache folder for this preset
 * (core/cache/tunedSchedules.ts), then builds the entry the way `orch build` now will, so
 * that build is a hit. A default that won forgets an earlier record.
 */
async function writeCache(compiler: Compiler, result: TuneResult, file: string, values: { externals: Record<string, Value>; defines: Record<string, number | boolean> }): Promise<string> {
  const root = compiler.cache.store.entryRoot(compiler.moduleRel(file), result.entry);
  const changed = Object.keys(result.best.changes).length > 0;
  try {
    writeTunedSchedule(root, compiler.config.preset.name, changed ? { codegen: result.best.changes, domain: result.domain, tunedAt: new Date().toISOString(), ...timesOf(result) } : null);
  } catch (e) {
    throw tunedScheduleUnwritable(root, (e as Error).message);
  }
  const built = await compiler.build({ modules: [file], entry: result.entry, externals: values.externals, defines: values.defines, mode: 'build' });
  if (built.errors.length) throw new OrchErrors(built.errors);
  return path.join(root, 'tuned.json');
}

/** The medians recorded with a schedule: the confirmation's, which the pick had to win, else the search's. */
function timesOf(r: TuneResult): { median_s?: number; defaultMedian_s?: number } {
  if (r.confirmation) return { median_s: r.confirmation.best.median_s, defaultMedian_s: r.confirmation.default.median_s };
  return { median_s: r.best.median_s, ...(r.base.median_s !== undefined ? { defaultMedian_s: r.base.median_s } : {}) };
}

function writePreset(config: Awaited<ReturnType<typeof openSession>>['config'], name: string, result: TuneResult, file: string, opts: TuneOptions): string {
  const base = config.preset;
  if (base.plugins.length) {
    throw presetWithPlugins(base.name, JSON.stringify(result.best.changes));
  }
  // the config's own codegen options win over its preset's: say which would hide the tuned ones
  for (const k of Object.keys(result.best.changes) as (keyof typeof base.codegen)[]) {
    if (JSON.stringify(config.codegen[k]) !== JSON.stringify(base.codegen[k])) process.stderr.write(`orch: warning: ${path.basename(config.configFile ?? 'the config')} sets codegen.${k}, which overrides the tuned preset's; remove it there to use the tuned value\n`);
  }
  const preset = tunedPreset(base, name, result);
  const command = ['orch tune', `${path.relative(config.root, file) || file}:${result.entry}`, `--domain ${result.domain.join(',')}`, ...(opts.preset ? [`--preset ${opts.preset}`] : [])].join(' ');
  const out = path.join(config.root, presetFileName(name));
  try {
    writeFileAtomic(out, presetModule(preset, base, result, command));
  } catch (e) {
    throw tuneOutputUnwritable(out, (e as Error).message);
  }
  return out;
}
