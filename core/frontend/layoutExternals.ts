import type { SourceLoc } from '../ir/types.js';
import { edgesOf, type CodePath, type LayoutTarget } from '../layout/RankLayout.js';
import type { Value } from './values.js';

/** What the frontend knows in a layout build: the code path and the rank's grid. */
export interface LayoutContext {
  codepath: CodePath;
  target: LayoutTarget;
}

/** NDSL's stand-in for "no edge here": an index far outside any domain (np.iinfo(np.int16).max). */
const FAR = 32767;

export const LAYOUT_EXTERNALS = ['i_start', 'i_end', 'j_start', 'j_end', 'local_is', 'local_ie', 'local_js', 'local_je', 'k_start', 'k_end'] as const;

/**
 * The region externals of one stencil call on one code path, as NDSL's
 * `GridIndexing.axis_offsets(origin, domain)` computes them: the rank's compute domain
 * starts at (halo, halo, 0) of every array and has the per-rank extent; `i_start` is the
 * first compute column when the rank is on the tile's west edge, else an index far outside
 * the domain (so a region on it is empty), and likewise `i_end`, `j_start`, `j_end`;
 * `local_*` are the rank's own compute bounds; `k_start`/`k_end` the call's K range.
 *
 * Indices are relative to the call's compute domain, so they depend on the call's origin
 * (and `k_end` on its K extent). Where that is not known at compile time the value is
 * opaque: using it is an error that names the call. `I[-1] + (isc + nx) - (o + d)` (NDSL's
 * spelling of `i_end`) is written here as the same point counted from the start, `I[0] +
 * iec - o`, which does not need the domain.
 */
export function axisOffsets(ctx: LayoutContext, origin: (number | null)[], domain: (number | null)[], call: SourceLoc): Record<string, Value> {
  const edges = edgesOf(ctx.codepath);
  const [nx, ny] = ctx.target.domain;
  const h = ctx.target.halo;
  const first = { I: h, J: h };
  const last = { I: h + nx - 1, J: h + ny - 1 };
  const unknown = (name: string, what: string): Value => ({
    k: 'opaque',
    why: `layout external '${name}' depends on the ${what} of the stencil call at ${call.file}:${call.line}, which is not known at compile time; in a layout build give that call a compile-time ${what} (literals, module constants, compiletime(int) arguments)`,
    loc: call,
  });
  const at = (name: string, axis: 'I' | 'J', point: number): Value => {
    const o = origin[axis === 'I' ? 0 : 1];
    return o === null || o === undefined ? unknown(name, 'origin') : { k: 'axisIndex', axis, index: 0, offset: point - o };
  };
  const far = (axis: 'I' | 'J', start: boolean): Value => ({ k: 'axisIndex', axis, index: start ? 0 : -1, offset: start ? -FAR : FAR });
  const k0 = origin[2];
  const nk = domain[2];
  return {
    i_start: edges.west ? at('i_start', 'I', first.I) : far('I', true),
    i_end: edges.east ? at('i_end', 'I', last.I) : far('I', false),
    j_start: edges.south ? at('j_start', 'J', first.J) : far('J', true),
    j_end: edges.north ? at('j_end', 'J', last.J) : far('J', false),
    local_is: at('local_is', 'I', first.I),
    local_ie: at('local_ie', 'I', last.I),
    local_js: at('local_js', 'J', first.J),
    local_je: at('local_je', 'J', last.J),
    k_start: k0 === null || k0 === undefined ? unknown('k_start', 'origin') : { k: 'num', value: k0, isInt: true },
    k_end: k0 === null || k0 === undefined || nk === null || nk === undefined ? unknown('k_end', k0 === null || k0 === undefined ? 'origin' : 'domain') : { k: 'num', value: k0 + nk - 1, isInt: true },
  };
}
