/**
 * A fixture's fraction of STREAM triad, measured in pairs: each round times the triad and then the
 * fixture, back to back, and the fraction is the median of the rounds' own ratios. This machine's
 * bandwidth drifts by 20-30 % within minutes (other tenants of the host), so one triad taken at
 * the start of a ten-minute run and divided into every row later compared different machines.
 */

export interface TriadPaired {
  /** median seconds a call */
  secs: number;
  /** median effective GB/s (compulsory bytes / seconds) */
  gbps: number;
  /** median triad GB/s of the rounds */
  triadGbps: number;
  /** median of the per-round fractions of that round's triad */
  frac: number;
  /** each round: [triad GB/s, fixture seconds] */
  rounds: [number, number][];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** `triad()` gives GB/s, `fixture()` seconds a call moving `bytes` compulsory bytes. */
export function triadPaired(bytes: number, rounds: number, triad: () => number, fixture: () => number): TriadPaired {
  if (rounds < 1) throw new Error(`triadPaired: rounds must be >= 1, got ${rounds}`);
  const pairs: [number, number][] = [];
  for (let r = 0; r < rounds; r++) {
    const t = triad();
    pairs.push([t, fixture()]);
  }
  return {
    secs: median(pairs.map(([, s]) => s)),
    gbps: median(pairs.map(([, s]) => bytes / s / 1e9)),
    triadGbps: median(pairs.map(([t]) => t)),
    frac: median(pairs.map(([t, s]) => bytes / s / 1e9 / t)),
    rounds: pairs,
  };
}
