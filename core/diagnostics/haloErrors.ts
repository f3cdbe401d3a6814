import { OrchError } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import { diagnostic } from './codes.js';

// The errors of halo exchanges and rank layouts: one factory per distinct error (after Rollup's src/utils/logs.ts),
// grouped under the code it reports, in the order of CODES in codes.ts.

// E_HALO_ARGS: halo_update called with arguments it does not take

export function haloTakesNoKeywords(name: string, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_HALO_ARGS', `${name}() takes no keyword arguments`, { loc, hint }));
}

export function haloArgumentOrder(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_ARGS', `${name}() takes the fields, then the halo width`, { loc, hint: `write ${name}(q, 3), or ${name}(u, v, 3) for several fields` }));
}

export function haloWidthNotConstant(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_ARGS', 'the halo width must be an int known at compile time', { loc, hint: `write ${name}(q, 3)` }));
}

export function haloWaitArguments(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_ARGS', 'halo_update_wait() takes the fields of its halo_update_start', { loc, hint: 'write halo_update_wait(q) after halo_update_start(q, 3)' }));
}

export function haloUpdaterTakesNoArguments(chainText: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_ARGS', `${chainText}() takes no arguments`, { loc, hint: 'NDSL\'s WrappedHaloUpdater exchanges the quantities it was made with' }));
}

// E_HALO_FIELD: a halo exchange of a field without I and J axes

export function haloFieldAxes(declName: string, axes: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_FIELD', `'${declName}' has axes ${axes}: only fields with I and J axes have a horizontal halo`, { loc, hint: 'exchange IJK or IJ fields' }));
}

export function haloFieldDataDims(declName: string, dims: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_FIELD', `'${declName}' has data dimensions (${dims}): orch exchanges halos of fields without data dimensions only, so far`, { loc, hint: 'exchange the elements through fields without data dimensions (copy them in a stencil), or keep this field out of the exchange' }));
}

export function haloFieldTwice(declName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_FIELD', `'${declName}' is passed twice`, { loc, hint: 'name each field once' }));
}

// E_HALO_WIDTH: a halo width outside the arrays' halo

export function haloWidthOutside(width: number, halo: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_WIDTH', `halo width ${width} is outside 1..${halo} (the arrays' halo)`, { loc, hint: `exchange at most ${halo} points, or build with a wider --halo` }));
}

// E_HALO_START: a halo_update_start that is never waited for in its block

export function haloStartNeverWaited(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_START', 'halo_update_start is never waited for', { loc, hint: 'call halo_update_wait with the same fields later in the same block' }));
}

export function haloStartNotWaitedInBlock(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_START', 'halo_update_start is not waited for in its own block', { loc, hint: 'call halo_update_wait with the same fields later in the same block' }));
}

// E_HALO_WAIT: a halo_update_wait without a matching halo_update_start before it

export function haloWaitWithoutStart(fields: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_WAIT', `halo_update_wait(${fields}) has no halo_update_start of the same fields before it`, { loc, hint: `call halo_update_start(${fields}, n) first, in the same block` }));
}

export function haloWaitOutsideBlock(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_WAIT', 'halo_update_wait is not in the block of its halo_update_start', { loc, hint: 'start and wait an exchange in the same block (the same loop body or branch)' }));
}

// E_HALO_IN_FLIGHT: a field exchanged again while its exchange is in flight

export function haloInFlight(field: string, line: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_IN_FLIGHT', `'${field}' is already being exchanged (halo_update_start at line ${line})`, { loc, hint: 'call halo_update_wait for it first' }));
}

// E_HALO_DIVERGED: ranks reached different halo exchanges

export function haloExchangesDiverged(line: number, line2: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_DIVERGED', `ranks reached different halo exchanges (line ${line} and line ${line2})`, { loc, hint: 'every rank must call the same halo updates in the same order: keep runtime conditions around them equal on all ranks' }));
}

export function ranksFinishedDuringExchange(done: number, resultsCount: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_DIVERGED', `${done} of ${resultsCount} ranks finished while the others wait in a halo exchange`, { loc, hint: 'every rank must call the same halo updates in the same order' }));
}

// E_HALO_SHAPE: ranks exchange fields of different local shapes

export function haloShapesDiffer(rank: number, shapes: string, shape0: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_HALO_SHAPE', `rank ${rank} exchanges fields of shape ${shapes}, rank 0 of ${shape0}`, { loc, hint: 'give every rank the same local shape (divide the global domain evenly)' }));
}

export function computeDomainBelowHalo(name: string, shape: string, nx: number, ny: number, width: number, halo: number): OrchError {
  return new OrchError(diagnostic('E_HALO_SHAPE', `field '${name}' of shape ${shape} has a compute domain of ${nx}x${ny}, smaller than the halo width ${width}`, { hint: `arrays carry ${halo} halo points on each side of a compute domain at least ${width} wide` }));
}

// E_LAYOUT_RANKS: the run has another number of ranks than the layout

export function layoutRankCount(layoutText: string, tiles: number, size: number): OrchError {
  return new OrchError(diagnostic('E_LAYOUT_RANKS', `layout ${layoutText} has ${tiles} ranks on its tile, but the run has ${size}`, { hint: `start ${tiles} ranks (mpirun -np ${tiles}), or pass the layout of this run (--layout, ORCH_LAYOUT); six-tile runs need the cubed sphere, not built yet` }));
}

export function haloNeedsRanks(nx: number, ny: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_LAYOUT_RANKS', `halo exchange in a ${nx}x${ny} layout: the interpreter runs one rank here`, { loc, hint: 'run the compiled program under mpirun (without --check or --mode python), or simulate every rank in one process with simulateRanks (core/interpreter/RankSimulation.ts)' }));
}

// E_LAYOUT_UNSUPPORTED: a rank layout orch does not support

export function layoutNotSupported(layoutText: string, axis: string): OrchError {
  return new OrchError(diagnostic('E_LAYOUT_UNSUPPORTED', `layout ${layoutText} is not supported: with one rank along ${axis}, every rank touches both ${axis === 'I' ? 'the west and east' : 'the south and north'} tile edges, which no code path covers`, { hint: 'use 1x1, or at least 2 ranks along each axis (as NDSL requires)' }));
}
