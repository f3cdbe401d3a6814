import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';

/**
 * A ccache for test files that rebuild the same sources many times while testing something
 * other than the compiler step (cache repair after corruption, ...): orch's
 * `compiler.launcher: ['ccache']` puts ccache before g++, which answers a repeated compile
 * from its cache; orch still generates, links, stores and loads every library. ccache is
 * output-neutral (test/launcher.test.ts), so the entries are the ones a plain build makes.
 * One folder per test run (the runner's ORCH_TEST_RUN_DIR), so files that build the same
 * sources share it; a fresh one per run, so a run never leans on an earlier one. Outside the
 * runner, a folder of the test's own (ccache makes it on first use).
 * Tests about the compiler itself (failures, hangs, signals, the launcher) do not use it.
 */
export interface CompilerCache {
  /** Environment for orch processes that use it. */
  env: Record<string, string>;
  /** Writes an orch.config.mjs naming the launcher into a project folder (plain JavaScript: no transpiling at each orch start). */
  configure(project: string): void;
  /** Takes the statistics that hitRate() counts from. */
  start(): Promise<void>;
  /** `hits of compiles (rate)` since start(), for the test's report. */
  hitRate(): Promise<string>;
}

export function compilerCache(ownDir: string): CompilerCache {
  const runDir = process.env.ORCH_TEST_RUN_DIR;
  const env = { CCACHE_DIR: runDir ? path.join(runDir, 'ccache') : path.join(ownDir, 'ccache') };
  // other files may use the run's folder at the same time: their compiles count too
  let start: Promise<Stats> = Promise.resolve({});
  return {
    env,
    configure(project: string) {
      writeFileSync(path.join(project, 'orch.config.mjs'), "export default { compiler: { launcher: ['ccache'] } };\n");
    },
    async start() {
      start = ccacheStats(env);
      await start;
    },
    async hitRate() {
      const [before, after] = await Promise.all([start, ccacheStats(env)]);
      const hits = (s: Stats) => (s.direct_cache_hit ?? 0) + (s.preprocessed_cache_hit ?? 0);
      const compiles = (s: Stats) => hits(s) + (s.cache_miss ?? 0);
      const h = hits(after) - hits(before);
      const n = compiles(after) - compiles(before);
      return `ccache: ${h} hits of ${n} compiles${n ? ` (${Math.round((100 * h) / n)}%)` : ''}${runDir ? " (the run's cache, shared with the files running beside this one)" : ''}`;
    },
  };
}

type Stats = Record<string, number>;

async function ccacheStats(env: Record<string, string>): Promise<Stats> {
  const r = await execa('ccache', ['--print-stats'], { env, reject: false });
  if (r.exitCode !== 0) return {};
  return Object.fromEntries(String(r.stdout).split('\n').map((l) => l.split('\t')).filter((p) => p.length === 2).map(([k, v]) => [k, Number(v)]));
}
