import { readFileSync, writeFileSync } from 'node:fs';

/**
 * How long each test file took in the last run (seconds), so the runner starts the heaviest
 * first and the pool does not end waiting on one long file. Kept in a gitignored file; a
 * file never timed yet falls back to FALLBACK_SECONDS, then to 1 s.
 */
export type TestTimes = Record<string, number>;

/**
 * Wall seconds of the heavy files in one run of the whole suite, 2 at a time, on the shared
 * 2-core machine under load (files not listed count 1 s); only the order they give matters,
 * so that a fresh checkout (CI) starts the longest files first.
 */
export const FALLBACK_SECONDS: TestTimes = {
  'test/docs.test.js': 823,
  'test/cudaBuild.test.js': 581,
  // added by their authors with their estimates, on this scale
  'test/cacheFaultInjection.test.js': 500,
  'test/soak.test.js': 150,
  'test/cli.test.js': 469,
  'test/conformance.test.js': 324,
  'test/ndsl.test.js': 322,
  'test/reliability.test.js': 284,
  'test/pythonPackage.test.js': 222,
  'test/mpi.test.js': 211,
  'test/layout.test.js': 198,
  'test/cacheCorruption.test.js': 175,
  'test/install.test.js': 166,
  'test/cudaEmulation.test.js': 163,
  'test/crossFileNames.test.js': 125,
  'test/passEquivalence.test.js': 116,
  'test/cacheIdentity.test.js': 93,
  'test/cacheEviction.test.js': 88,
  'test/diagnostics.test.js': 78,
  'test/modes.test.js': 77,
  'plugins/codegen/generateCpp.test.js': 66,
  'test/cudaDebugChecks.test.js': 66,
  'test/pythonInterpreter.test.js': 66,
  'test/poisonedEntry.test.js': 64,
  'test/ndslHalo.test.js': 60,
  'test/plugins.test.js': 55,
  'test/watch.test.js': 54,
  'test/languageFixtures.test.js': 43,
  'test/stencilExternals.test.js': 42,
  'test/cudaCli.test.js': 40,
  'test/info.test.js': 37,
  'test/debugChecks.test.js': 36,
  'test/fuzz.test.js': 85,
  'test/cleanWhileBuilding.test.js': 45,
  'test/cliUsage.test.js': 34,
};

export function readTestTimes(file: string): TestTimes {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      return Object.fromEntries(Object.entries(data).filter(([, v]) => typeof v === 'number' && Number.isFinite(v))) as TestTimes;
    }
  } catch {
    // no record yet, or a broken one: the fallback order serves
  }
  return {};
}

export function writeTestTimes(file: string, previous: TestTimes, measured: TestTimes): void {
  try {
    writeFileSync(file, `${JSON.stringify({ ...previous, ...measured }, null, 1)}\n`);
  } catch {
    // a read-only checkout only loses the ordering hint
  }
}

/** Heaviest first; ties by name so the order is stable. */
export function heaviestFirst(names: string[], times: TestTimes): string[] {
  const cost = (n: string) => times[n] ?? FALLBACK_SECONDS[n] ?? 1;
  return [...names].sort((a, b) => cost(b) - cost(a) || a.localeCompare(b));
}
