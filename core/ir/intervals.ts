import type { AxisBound } from './types.js';

/**
 * K intervals (`interval(start, end)` as `AxisBound`s): how users spell them, and the
 * smallest K size for which they are a non-empty range inside the domain, which GT4Py
 * requires of every interval when a stencil is called.
 */

/** The Python spelling: `interval(...)`, `interval(1, -1)`, `interval(-1, None)`. */
export function intervalText(start: AxisBound, end: AxisBound): string {
  if (start.level === 'start' && start.offset === 0 && end.level === 'end' && end.offset === 0) return 'interval(...)';
  const bound = (b: AxisBound, isEnd: boolean): string => {
    if (b.level === 'end' && b.offset === 0) return isEnd ? 'None' : 'K[-1] + 1';
    if (b.level === 'start' && b.offset === 0 && !isEnd) return '0';
    return b.level === 'end' || b.offset >= 0 ? String(b.offset) : `K[0] - ${-b.offset}`;
  };
  return `interval(${bound(start, false)}, ${bound(end, true)})`;
}

/**
 * The smallest K size `n` with `0 <= lo < hi <= n`, where `lo`/`hi` are the interval's
 * bounds for `n` levels; `null` when no size works (the interval can never run).
 */
export function intervalMinLevels(start: AxisBound, end: AxisBound): number | null {
  const a = start.offset;
  const b = end.offset;
  if (start.level === 'start' && end.level === 'start') return a >= 0 && b > a ? b : null;
  if (start.level === 'end' && end.level === 'end') return b <= 0 && b > a ? -a : null;
  if (start.level === 'start' && end.level === 'end') return a >= 0 && b <= 0 ? a - b + 1 : null;
  return null; // starts from the top, ends from the bottom: GT4Py rejects it outright
}

/**
 * Orders axis bounds as if the domain were larger than every offset: start-relative
 * bounds before end-relative ones (the assumption GT4Py's interval checks and extents make).
 */
export function boundRank(b: AxisBound): number {
  return b.level === 'start' ? b.offset : 1e9 + b.offset;
}

/** Whether two intervals share a level (on a domain larger than their offsets). */
export function intervalsOverlap(a: { start: AxisBound; end: AxisBound }, b: { start: AxisBound; end: AxisBound }): boolean {
  return Math.max(boundRank(a.start), boundRank(b.start)) < Math.min(boundRank(a.end), boundRank(b.end));
}
