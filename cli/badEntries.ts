import { usageError } from './failure.js';

/** `--bad-entry KEY=REASON` -> key -> reason. */
export function badEntries(v: string[] | undefined): Record<string, string> | undefined {
  if (!v?.length) return undefined;
  const out: Record<string, string> = {};
  for (const x of v) {
    const m = /^([0-9a-f]{64})=([^]*)$/.exec(x);
    if (!m) usageError('E_USAGE_BAD_ENTRY', `--bad-entry ${JSON.stringify(x.slice(0, 80))} is not KEY=REASON`, 'KEY is the 64-hex-digit key of a cache entry (orch build --json reports it)');
    out[m[1]] = m[2];
  }
  return out;
}
