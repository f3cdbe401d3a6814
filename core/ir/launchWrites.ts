import type { Launch, PStmt } from './types.js';
import { writes } from './uses.js';
import { launches } from './visit.js';

/** Arrays a launch assigns to. */
export function launchWrites(s: Launch, out = new Set<string>()): Set<string> {
  for (const v of s.loops) for (const h of v.body) writes(h.body, out);
  return out;
}

/** Arrays some launch of an (expanded) program assigns to: the fields a host must pass writable. */
export function programWrites(body: readonly PStmt[], out = new Set<string>()): Set<string> {
  for (const l of launches(body)) launchWrites(l, out);
  return out;
}
