import { notDuration, notSize } from '../diagnostics/usageErrors.js';

/** Sizes and ages as `orch clean` and `cache.maxSize` take them (like ccache's -M). */

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12, ki: 1024, mi: 1024 ** 2, gi: 1024 ** 3, ti: 1024 ** 4 };
const AGE_UNITS: Record<string, number> = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 };

/** A size as parseSize reads it (the config schema checks `cache.maxSize` with it). */
export const SIZE_PATTERN = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?|b)?b?\s*$/i;

/** `500M`, `1.5G`, `64Ki`, `1000` -> bytes (K, M, G, T are powers of 1000; Ki, Mi, Gi, Ti of 1024). */
export function parseSize(text: string, what = '--max-size'): number {
  const m = SIZE_PATTERN.exec(text);
  const unit = SIZE_UNITS[(m?.[2] ?? '').toLowerCase()];
  if (!m || unit === undefined) throw notSize(what, text);
  return Math.floor(Number(m[1]) * unit);
}

/** `7d`, `12h`, `30m`, `45s`, `2w` -> milliseconds. */
export function parseAge(text: string, what = '--older-than'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$/i.exec(text);
  if (!m) throw notDuration(what, text);
  return Number(m[1]) * AGE_UNITS[m[2].toLowerCase()];
}

/** Bytes for people: 1.2 MB (powers of 1000, as parseSize reads M). */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = -1;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}
