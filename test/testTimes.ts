import { readFileSync, writeFileSync } from 'node:fs';

/**
 * How long each test file took in the last run (seconds), so the runner starts the heaviest
 * first and the pool does not end waiting on one long file. Kept in a gitignored file; a
 * file never timed yet falls back to FALLBACK_SECONDS, then to 1 s.
 */
export type TestTimes = Record<string, number>;

/** Measured alone on the 2-core CI machine; only the order matters, not the figures. */
export const FALLBACK_SECONDS: TestTimes = {};

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
