import { badEntryNotKeyReason } from '../core/diagnostics/usageErrors.js';

/** `--bad-entry KEY=REASON` -> key -> reason. */
export function badEntries(v: string[] | undefined): Record<string, string> | undefined {
  if (!v?.length) return undefined;
  const out: Record<string, string> = {};
  for (const x of v) {
    const m = /^([0-9a-f]{64})=([^]*)$/.exec(x);
    if (!m) throw badEntryNotKeyReason(JSON.stringify(x.slice(0, 80)));
    out[m[1]] = m[2];
  }
  return out;
}
