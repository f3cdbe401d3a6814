import { readFileSync, writeFileSync } from 'node:fs';

/**
 * How long each test file took in the last run (seconds), so the runner starts the heaviest
 * first and the pool does not end waiting on one long file. Kept in a gitignored file; a
 * file never timed yet falls back to FALLBACK_SECONDS, then to 1 s.
 */
export type TestTimes = Record<string, number>;

/**
 * Wall seconds of every file over 2 s in one quiet run of the whole suite, 2 at a time, on
 * the shared 2-core machine (files not listed count 1 s); only the order they give matters,
 * so that a fresh checkout (CI), which has no record, starts the longest files first and
 * does not end on a long file started last (tune and fusedNests did, unlisted).
 */
export const FALLBACK_SECONDS: TestTimes = {
  'test/cudaBuild.test.js': 163,
  'test/cacheFaultInjection.test.js': 151,
  'test/docs.test.js': 135,
  'test/soak.test.js': 80,
  'test/mpi.test.js': 62,
  'test/cudaEmulation.test.js': 61,
  'test/cli.test.js': 54,
  'test/pythonPackage.test.js': 53,
  'test/ndsl.test.js': 50,
  'test/fuzz.test.js': 49,
  'test/conformance.test.js': 46,
  'test/fusedNests.test.js': 36,
  'test/passEquivalence.test.js': 35,
  'test/reliability.test.js': 31,
  'test/inPlaceVersions.test.js': 29,
  'test/tune.test.js': 25,
  'test/crossFileNames.test.js': 25,
  'test/layout.test.js': 24,
  'test/cleanWhileBuilding.test.js': 20,
  'test/languageFixtures.test.js': 20,
  'test/cacheEviction.test.js': 19,
  'test/cacheCorruption.test.js': 19,
  'test/ndslHalo.test.js': 15,
  'test/diagnostics.test.js': 14,
  'test/install.test.js': 14,
  'test/watch.test.js': 12,
  'test/runArguments.test.js': 11,
  'test/frontDoorKeys.test.js': 11,
  'test/cacheIdentity.test.js': 11,
  'test/sweepBlocks.test.js': 11,
  'test/cudaDebugChecks.test.js': 10,
  'test/pythonInterpreter.test.js': 10,
  'test/plugins.test.js': 10,
  'test/compileTimeValues.test.js': 10,
  'test/stencilExternals.test.js': 9,
  'test/poisonedEntry.test.js': 9,
  'plugins/codegen/generateCpp.test.js': 8,
  'test/tileRemainder.test.js': 8,
  'test/modes.test.js': 8,
  'test/report.test.js': 8,
  'test/rejections.test.js': 7,
  'test/vectorization.test.js': 7,
  'test/cudaCli.test.js': 7,
  'test/debugChecks.test.js': 6,
  'test/callInterface.test.js': 6,
  'test/info.test.js': 6,
  'test/whileBound.test.js': 6,
  'test/testRunner.test.js': 6,
  'test/launcher.test.js': 6,
  'core/cache/EntryLock.test.js': 5,
  'test/compilerHang.test.js': 5,
  'test/backendNames.test.js': 5,
  'test/defaultDomain.test.js': 4,
  'test/pythonCuda.test.js': 4,
  'test/npyInput.test.js': 4,
  'test/programClass.test.js': 4,
  'test/cacheRoot.test.js': 4,
  'test/watching.test.js': 4,
  'test/irRoundTrip.test.js': 4,
  'test/haloPython.test.js': 4,
  'test/configKeys.test.js': 4,
  'test/sweepStaging.test.js': 3,
  'test/callbacks.test.js': 3,
  'plugins/codegen/generateCuda.test.js': 3,
  'test/byteOrderMark.test.js': 3,
  'test/buildNoEntries.test.js': 3,
  'test/cliUsage.test.js': 2,
  'test/backends.test.js': 2,
  'test/cudaArchKey.test.js': 2,
  'test/configTranspileCache.test.js': 2,
  'core/toolchain/nvcc.test.js': 2,
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
