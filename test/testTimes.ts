import { readFileSync, writeFileSync } from 'node:fs';

/**
 * How long each test file took in the last run (seconds), so the runner starts the heaviest
 * first and the pool does not end waiting on one long file. Kept in a gitignored file; a
 * file never timed yet falls back to FALLBACK_SECONDS, then to 1 s.
 */
export type TestTimes = Record<string, number>;

/**
 * Wall seconds of the heavy files, measured on the shared 2-core machine under load (files
 * not listed count 1 s); only the order they give matters, so that a fresh checkout (CI)
 * starts the longest files first.
 */
export const FALLBACK_SECONDS: TestTimes = {
  'test/cudaBuild.test.js': 740,
  'test/docs.test.js': 470,
  'test/cacheFaultInjection.test.js': 400,
  'test/cli.test.js': 300,
  'test/reliability.test.js': 200,
  'test/conformance.test.js': 190,
  'test/cudaEmulation.test.js': 185,
  'test/install.test.js': 170,
  'test/layout.test.js': 160,
  'test/cacheCorruption.test.js': 130,
  'test/soak.test.js': 100,
  'test/passEquivalence.test.js': 90,
  'test/mpi.test.js': 80,
  'test/ndsl.test.js': 80,
  'test/modes.test.js': 75,
  'test/cacheEviction.test.js': 70,
  'test/cacheIdentity.test.js': 65,
  'test/crossFileNames.test.js': 63,
  'plugins/codegen/generateCpp.test.js': 60,
  'test/cudaDebugChecks.test.js': 60,
  'test/fuzz.test.js': 85,
  'test/cleanWhileBuilding.test.js': 45,
  'test/watch.test.js': 60,
  'test/poisonedEntry.test.js': 57,
  'test/pythonPackage.test.js': 50,
  'test/pythonCuda.test.js': 50,
  'test/plugins.test.js': 50,
  'test/nativeLibrary.test.js': 40,
  'test/cudaCli.test.js': 36,
  'test/cliUsage.test.js': 33,
  'test/compilerHang.test.js': 30,
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
