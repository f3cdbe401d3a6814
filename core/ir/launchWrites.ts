import type { LaunchStmt } from './accessBounds.js';
import type { PStmt } from './types.js';
import { writes } from './walk.js';

/** Arrays a launch assigns to. */
export function launchWrites(s: LaunchStmt, out = new Set<string>()): Set<string> {
  for (const v of s.loops) for (const h of v.body) writes(h.body, out);
  return out;
}

/** Arrays some launch of an (expanded) program assigns to: the fields a host must pass writable. */
export function programWrites(body: readonly PStmt[], out = new Set<string>()): Set<string> {
  for (const s of body) {
    if (s.kind === 'launch') launchWrites(s, out);
    else if (s.kind === 'for' || s.kind === 'while') programWrites(s.body, out);
    else if (s.kind === 'if') {
      programWrites(s.then, out);
      programWrites(s.else, out);
    }
  }
  return out;
}
