import type { EntryArgs } from '../runtime/callArgs.js';
import type { ReadyEntry } from '../runtime/EntryRunner.js';
import { hostCallbacks } from '../runtime/hostCallbacks.js';
import { NativeLibrary } from '../runtime/NativeLibrary.js';

/** Median, fastest and slowest of a set of call times, in seconds. */
export interface TimeStats {
  median_s: number;
  min_s: number;
  max_s: number;
  runs: number;
}

export function timeStats(times: number[]): TimeStats {
  const s = [...times].sort((a, b) => a - b);
  return { median_s: s[Math.floor(s.length / 2)], min_s: s[0], max_s: s[s.length - 1], runs: s.length };
}

/**
 * Opens the libraries, each bound to its own arguments (`args(i)`: the calls overwrite
 * their outputs), and hands `use` a clock that makes one call of library i and returns its
 * seconds; closes them after. All of them share the process's one OpenMP runtime (libgomp
 * is loaded once), and only one runs at a time.
 */
export function withLibraries<T>(entries: ReadyEntry[], args: (i: number) => EntryArgs, use: (time: (i: number) => number) => T): T {
  const libs = entries.map((e) => NativeLibrary.open(e.result.library!, e.result.symbol!));
  try {
    libs.forEach((lib, i) => {
      lib.setCallbacks(hostCallbacks(entries[i].iface));
      lib.bind(args(i));
    });
    return use((i) => {
      const t0 = process.hrtime.bigint();
      libs[i].run();
      return Number(process.hrtime.bigint() - t0) / 1e9;
    });
  } finally {
    for (const lib of libs) lib.close();
  }
}

/**
 * Times `runs` calls of each library, round-robin (one call of each per round), after two
 * untimed rounds that warm the caches and the OpenMP pool. With one library (the search's
 * use) that is `runs` calls in a row. With several, each call starts with the others'
 * fields in the caches: the tuner's confirmation times blocks instead (confirmation.ts).
 */
export function interleavedTimes(entries: ReadyEntry[], args: (i: number) => EntryArgs, runs: number): TimeStats[] {
  return withLibraries(entries, args, (time) => roundRobinTimes(entries.length, time, runs));
}

/** interleavedTimes' order of calls on any clock (`time(i)`: one call of library i, in seconds). */
export function roundRobinTimes(count: number, time: (i: number) => number, runs: number): TimeStats[] {
  const times: number[][] = Array.from({ length: count }, () => []);
  for (let r = 0; r < runs + 2; r++) {
    for (let i = 0; i < count; i++) {
      const t = time(i);
      if (r >= 2) times[i].push(t);
    }
  }
  return times.map(timeStats);
}
