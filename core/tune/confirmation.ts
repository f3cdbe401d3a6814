import { timeStats, type TimeStats } from './interleavedTimes.js';

/**
 * How the tuner confirms its pick against the default before writing it. Each block warms
 * one library up on its own and then times calls of it alone, the way `orch run --repeat`
 * and the bench time a library: alternating single calls (the earlier protocol) left each
 * call with the other library's fields in the caches, and on del-n damping and the dycore
 * that favoured schedules the bench then measured slower (docs/tune.md, "Confirmation").
 */
export interface ConfirmPolicy {
  /** Blocks per library, alternating default/pick with the order flipped every pair (ABBA). */
  blocks: number;
  /** Untimed calls at the start of every block (the caches and the thread pool settle). */
  warmup: number;
  /** Timed calls per block; the block's median is its figure. */
  callsPerBlock: number;
  /** The least gain worth a schedule change (0.03: 3 %), even on a machine that measured no noise. */
  minGain: number;
}

export const DEFAULT_CONFIRM_POLICY: ConfirmPolicy = { blocks: 6, warmup: 3, callsPerBlock: 10, minGain: 0.03 };

/** The confirmation's figures, as `orch tune` reports them and the bench quotes them. */
export interface Confirmation {
  policy: ConfirmPolicy;
  /** Every timed call of each library. */
  default: TimeStats;
  best: TimeStats;
  /** Per block pair: the default's block median over the pick's. */
  ratios: number[];
  /** The median of `ratios`: how many times faster the pick ran. */
  speedup: number;
  /** The measurement's noise: how far apart one library's block medians were (0.05: 5 %), the larger of the two. */
  spread: number;
  /** The speedup the pick needed: 1 + max(spread, minGain). */
  required: number;
  /** Whether the pick was faster in every block pair and by more than `required`. */
  holds: boolean;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** One library's noise: its slowest block median over its fastest, less 1. */
function blockSpread(medians: number[]): number {
  return Math.max(...medians) / Math.min(...medians) - 1;
}

/**
 * The rule: a pick stands only if it beat the default in every block pair and its median
 * speedup exceeds the noise the measurement itself showed (and `minGain`). A pick that is
 * faster only by less than the machine's jitter is noise, and the default stays.
 */
export function judge(defaultBlocks: number[][], bestBlocks: number[][], policy: ConfirmPolicy): Confirmation {
  const dm = defaultBlocks.map(median);
  const bm = bestBlocks.map(median);
  const ratios = dm.map((d, i) => d / bm[i]);
  const speedup = median(ratios);
  const spread = Math.max(blockSpread(dm), blockSpread(bm));
  const required = 1 + Math.max(spread, policy.minGain);
  const holds = ratios.every((r) => r > 1) && speedup > required;
  return { policy, default: timeStats(defaultBlocks.flat()), best: timeStats(bestBlocks.flat()), ratios, speedup, spread, required, holds };
}

/**
 * Times the default (library 0) and the pick (library 1) in alternating blocks and judges
 * the pick. `time(i)` makes one call of library i and returns its seconds; the tests pass
 * a fake clock.
 */
export function confirmPick(time: (lib: 0 | 1) => number, policy: ConfirmPolicy = DEFAULT_CONFIRM_POLICY): Confirmation {
  const blocks: [number[][], number[][]] = [[], []];
  for (let b = 0; b < policy.blocks; b++) {
    // ABBA: a drift of the machine during the run weighs on both alike
    const order: (0 | 1)[] = b % 2 === 0 ? [0, 1] : [1, 0];
    for (const lib of order) {
      for (let w = 0; w < policy.warmup; w++) time(lib);
      const calls: number[] = [];
      for (let c = 0; c < policy.callsPerBlock; c++) calls.push(time(lib));
      blocks[lib].push(calls);
    }
  }
  return judge(blocks[0], blocks[1], policy);
}

/** The confirmation's log line: both medians, the speedup against what it needed, and the verdict. */
export function confirmationLine(label: string, c: Confirmation): string {
  const ms = (s: number) => `${(s * 1e3).toFixed(3)} ms`;
  const verdict = c.holds ? 'holds' : 'REJECTED, the default stays';
  return `  confirm ${label}: ${c.policy.blocks} blocks of ${c.policy.callsPerBlock} calls each, alternating: default ${ms(c.default.median_s)}, pick ${ms(c.best.median_s)}; ${c.speedup.toFixed(3)}x (needs > ${c.required.toFixed(3)}x: noise ${(c.spread * 100).toFixed(1)} %, in every block: ${c.ratios.every((r) => r > 1) ? 'yes' : 'no'}): ${verdict}`;
}
