import type { LaunchStmt } from './accessBounds.js';
import type { DebugCheck, Stmt } from './types.js';

export type CheckStmt = Extract<Stmt, { kind: 'check' }>;

/** Whether point statements `body` hold a debug check that `test` accepts. */
export function hasCheck(body: readonly Stmt[], test: (c: DebugCheck) => boolean = () => true): boolean {
  return body.some((x) =>
    x.kind === 'check' ? test(x.check) : x.kind === 'if' ? hasCheck(x.then, test) || hasCheck(x.else, test) : x.kind === 'while' || x.kind === 'region' ? hasCheck(x.body, test) : false,
  );
}

/** Whether a launch holds a debug check that `test` accepts. */
export function launchHasCheck(s: LaunchStmt, test?: (c: DebugCheck) => boolean): boolean {
  return s.loops.some((v) => v.body.some((h) => hasCheck(h.body, test)));
}
