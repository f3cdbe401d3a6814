import type { Program } from '../../core/ir/types.js';
import { flatMapPStmts } from '../../core/ir/visit.js';
import { expandCall } from './expandStencil.js';
import { LAUNCH_TILES } from '../simplify/launchTiles.js';

interface ExpansionOptions {
  /**
   * The preset's tile size: every launch is marked for tiling (simplify's tiling pass decides);
   * 'auto' marks them with a placeholder the tiling pass replaces by the tile of each launch's kind.
   */
  tile?: [number, number] | [number, number, number] | false | 'auto';
}

/** Replaces every stencil `call` of a program by its loop nests (see expandStencil.ts). */
export function expandProgram(program: Program, opts: ExpansionOptions = {}): Program {
  const size = opts.tile === 'auto' ? LAUNCH_TILES.pointwise : opts.tile;
  const tile = size ? { size: [size[0], size[1]] as [number, number], ...(size[2] ? { k: size[2] } : {}), local: [] } : undefined;
  const arrays = [...program.arrays];
  const scalars = [...program.scalars];
  let n = 0;
  const body = flatMapPStmts(program.body, (s) => {
    if (s.kind !== 'call') return [s];
    const r = expandCall({ ...program, arrays }, s, `${s.stencil}_${n++}_`);
    arrays.push(...r.transients);
    for (const l of r.locals) scalars.push({ name: l.name, dtype: l.dtype, role: 'local' });
    return tile ? r.stmts.map((x) => (x.kind === 'launch' ? { ...x, tile } : x)) : r.stmts;
  });
  return { ...program, arrays, scalars, body };
}
