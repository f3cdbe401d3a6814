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
 * Times `runs` calls of each library, round-robin (one call of each per round), after two
 * untimed rounds that warm the caches and the OpenMP pool. Alternating puts the machine's
 * slow moments on every candidate alike, so their medians compare. `args(i)` gives each
 * library its own arguments (the calls overwrite their outputs).
 */
export function interleavedTimes(entries: ReadyEntry[], args: (i: number) => EntryArgs, runs: number): TimeStats[] {
  const libs = entries.map((e) => NativeLibrary.open(e.result.library!, e.result.symbol!));
  try {
    libs.forEach((lib, i) => {
      lib.setCallbacks(hostCallbacks(entries[i].iface));
      lib.bind(args(i));
    });
    const times: number[][] = libs.map(() => []);
    for (let r = 0; r < runs + 2; r++) {
      libs.forEach((lib, i) => {
        const t0 = process.hrtime.bigint();
        lib.run();
        if (r >= 2) times[i].push(Number(process.hrtime.bigint() - t0) / 1e9);
      });
    }
    return times.map(timeStats);
  } finally {
    for (const lib of libs) lib.close();
  }
}
