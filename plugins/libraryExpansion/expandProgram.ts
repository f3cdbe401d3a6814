import type { PStmt, Program } from '../../core/ir/types.js';
import { expandCall } from './expandStencil.js';

/** Replaces every stencil `call` of a program by its loop nests (see expandStencil.ts). */
export function expandProgram(program: Program): Program {
  const arrays = [...program.arrays];
  const scalars = [...program.scalars];
  let n = 0;
  const walk = (stmts: PStmt[]): PStmt[] =>
    stmts.flatMap((s): PStmt[] => {
      switch (s.kind) {
        case 'call': {
          const r = expandCall({ ...program, arrays }, s, `${s.stencil}_${n++}_`);
          arrays.push(...r.transients);
          for (const l of r.locals) scalars.push({ name: l.name, dtype: l.dtype, role: 'local' });
          return r.stmts;
        }
        case 'for':
        case 'while':
          return [{ ...s, body: walk(s.body) }];
        case 'if':
          return [{ ...s, then: walk(s.then), else: walk(s.else) }];
        default:
          return [s];
      }
    });
  const body = walk(program.body);
  return { ...program, arrays, scalars, body };
}
