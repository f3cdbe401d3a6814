import type { DebugCheck, Launch, Stmt } from './types.js';
import { someStmt } from './visit.js';

export type CheckStmt = Extract<Stmt, { kind: 'check' }>;

/** Whether point statements `body` hold a debug check that `test` accepts. */
function hasCheck(body: readonly Stmt[], test: (c: DebugCheck) => boolean = () => true): boolean {
  return someStmt(body, (x) => x.kind === 'check' && test(x.check));
}

/** Whether a launch holds a debug check that `test` accepts. */
export function launchHasCheck(s: Launch, test?: (c: DebugCheck) => boolean): boolean {
  return s.loops.some((v) => v.body.some((h) => hasCheck(h.body, test)));
}
