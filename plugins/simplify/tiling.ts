import type { ArrayDecl, HLoop, Program, Launch } from '../../core/ir/types.js';
import { versionable, versionInPlace } from './inPlaceVersions.js';
import { launchArrays } from '../../core/ir/accessBounds.js';
import { launches, mapStmtLists } from '../../core/ir/visit.js';
import { sweepTilePays } from './sweepTiling.js';
import { reads, variableKNames, writes } from '../../core/ir/uses.js';
import { definitelyWritten, writtenOrUntouched } from '../../core/ir/writtenBeforeRead.js';
import { LAUNCH_TILES, launchTileKind, type LaunchTileSchedule } from './launchTiles.js';

/**
 * Tiling (simplify, second run): library expansion marks launches with the preset's tile
 * size; here a launch keeps it when its transients can live per tile. A tiled launch runs
 * tile by tile, every loop of the launch inside each tile, so a stencil's temporaries stay
 * in cache between the nests that write and read them instead of streaming through memory.
 *
 * Nests whose output later nests read at horizontal offsets grow beyond the tile (they
 * over-compute the halo the readers need), which is only legal for values private to the
 * tile: each tile gets its own copy of the launch's transients. Arrays that outlive the
 * launch and are written by nests that grow, or read sideways or by such nests after
 * being updated in place, are versioned per tile (inPlaceVersions.ts), so tiles never
 * see each other's writes.
 */

/** Growth beyond which a dependence is treated as a cycle (a nest reading its own output sideways). */
const MAX_GROW = 16;

type Grow = [number, number, number, number];

interface Nest {
  h: HLoop;
  /** index of its vertical loop in the launch */
  v: number;
  /** the vertical loop runs level by level (FORWARD/BACKWARD), so every nest of it may run before every other */
  sequential: boolean;
  writes: Set<string>;
  reads: ReturnType<typeof reads>;
}

function nestsOf(l: Launch): Nest[] {
  return l.loops.flatMap((v, vi) => v.body.map((h) => ({ h, v: vi, sequential: v.order !== 'PARALLEL', writes: writes(h.body), reads: reads(h.body) })));
}

/**
 * The growth of every nest, or null when tiling this launch would change results: a nest
 * reads its own output sideways, or a halo grows past MAX_GROW. Arrays in `local` are
 * per tile, so nests writing them grow to cover what later nests read of them.
 */
function growth(nests: Nest[], local: Set<string>): Grow[] | null {
  for (const n of nests) {
    // a nest reading its own output sideways depends on the order of points
    for (const r of n.reads) if (n.writes.has(r.name) && (r.offset[0] !== 0 || r.offset[1] !== 0)) return null;
  }
  const grow: Grow[] = nests.map(() => [0, 0, 0, 0]);
  const mayRunBefore = (w: number, m: number) => w < m || (nests[w].v === nests[m].v && nests[m].sequential);
  for (let changed = true; changed; ) {
    changed = false;
    nests.forEach((m, mi) => {
      for (const r of m.reads) {
        if (!local.has(r.name)) continue;
        const need: Grow = [grow[mi][0] - r.offset[0], grow[mi][1] + r.offset[0], grow[mi][2] - r.offset[1], grow[mi][3] + r.offset[1]];
        nests.forEach((w, wi) => {
          if (!w.writes.has(r.name) || !mayRunBefore(wi, mi)) return;
          for (let d = 0; d < 4; d++) {
            if (need[d] > grow[wi][d]) {
              grow[wi][d] = need[d];
              changed = true;
            }
          }
        });
      }
    });
    if (grow.some((g) => g.some((x) => x > MAX_GROW))) return null;
  }
  return grow;
}

/**
 * Arrays that outlive the launch (not in `local`) through which one tile would see another
 * tile's writes: written by a nest that grows, or written and read sideways or by a nest
 * that grows. Tiling needs none, or each of them versioned per tile.
 */
function sharedHazards(nests: Nest[], grow: Grow[], local: Set<string>): Set<string> {
  const out = new Set<string>();
  const grows = (i: number) => grow[i].some((x) => x > 0);
  for (const [i, n] of nests.entries()) {
    for (const name of n.writes) if (!local.has(name) && grows(i)) out.add(name);
  }
  const sharedWritten = new Set(nests.flatMap((n) => [...n.writes].filter((w) => !local.has(w))));
  for (const [i, n] of nests.entries()) {
    for (const r of n.reads) {
      if (sharedWritten.has(r.name) && (grows(i) || r.offset[0] !== 0 || r.offset[1] !== 0)) out.add(r.name);
    }
  }
  return out;
}

/** Program temporaries and the launches that touch them. */
function temporaryUsers(p: Program): Map<string, Set<Launch>> {
  const users = new Map<string, Set<Launch>>(p.arrays.filter((a) => a.role === 'temporary').map((a) => [a.name, new Set<Launch>()]));
  for (const l of launches(p.body)) for (const name of launchArrays(l)) users.get(name)?.add(l);
  return users;
}

/** A launch as tiling leaves it, and the arrays it declared for versions of in-place arrays. */
interface Tiled {
  launch: Launch;
  decls: ArrayDecl[];
}

function tileLaunch(l: Launch, program: Program, temporaries: Map<string, Set<Launch>>, taken: Set<string>, opts: TilingOptions): Tiled {
  if (!l.tile) return { launch: l, decls: [] };
  const { tile: _, ...untiled } = l;
  const none = { launch: untiled, decls: [] };
  const decl = new Map(program.arrays.map((a) => [a.name, a]));
  // arrays read or written at a variable K offset: their levels are known only as they happen
  const variableK = new Set<string>();
  for (const v of l.loops) for (const h of v.body) for (const name of variableKNames(h.body)) variableK.add(name);
  // A program temporary only this launch touches, written before it is read, is a transient
  // in all but name: no other launch (nor a later run of this one) sees its values. Points
  // it never writes hold the zero every call starts with, as in a zero-filled tile array.
  const privateTemporaries = [...temporaries].filter(([name, users]) => users.size === 1 && users.has(l) && writtenOrUntouched(name, l)).map(([name]) => name);
  const local = new Set([...l.transients, ...privateTemporaries].filter((t) => decl.get(t)?.axes === 'IJK' && !variableK.has(t)));
  // nothing to keep in cache: tiles would only add loop overhead, unless they let a sweep
  // run across columns (sweepTiling.ts); such a tile needs no growth and no versions
  const sweepOnly = local.size === 0;
  if (sweepOnly && !sweepTilePays(l, decl)) return none;
  const nests = nestsOf(l);
  // arrays updated in place that tiles would share get a version per tile, until none is shared
  const versioned = new Set<string>();
  let grow: Grow[] | null;
  for (;;) {
    grow = growth(nests, new Set([...local, ...versioned]));
    if (!grow) return none;
    const hazards = sharedHazards(nests, grow, new Set([...local, ...versioned]));
    if (hazards.size === 0) break;
    if (sweepOnly) return none;
    for (const name of hazards) {
      if (!versionable(decl.get(name), variableK)) return none;
      versioned.add(name);
    }
  }
  let n = 0;
  const loops = l.loops.map((v) => ({
    ...v,
    body: v.body.map((h) => {
      const g = grow[n++];
      return g.some((x) => x > 0) ? { ...h, grow: g } : h;
    }),
  }));
  const grown: Launch = { ...l, loops };
  // codegen.tile 'auto': the shape of the launch's kind (launchTiles.ts), else the preset's
  const shape = opts.perLaunch ? LAUNCH_TILES[launchTileKind(grown, { versioned: versioned.size > 0, grows: grow.some((g) => g.some((x) => x > 0)) }, opts.perLaunch)] : [...l.tile.size, l.tile.k];
  const k = shape[2] && cutsAlongK(l) ? { k: shape[2] } : {};
  const zeroFilled = (name: string) => ({ name, zeroFill: !definitelyWritten(name, grown) });
  const tiled: Launch = { ...grown, tile: { size: [shape[0], shape[1]] as [number, number], ...k, local: [...local].map(zeroFilled) } };
  if (versioned.size === 0) return { launch: tiled, decls: [] };
  return versionInPlace(tiled, [...versioned].map((name) => decl.get(name)!), taken, cutsAlongK(l), opts.versionK);
}

/**
 * Whether tiles may also be cut along K: every loop is PARALLEL and nothing the launch
 * writes is read at a K offset, so the levels of one tile never need another tile's.
 */
function cutsAlongK(l: Launch): boolean {
  if (l.loops.some((v) => v.order !== 'PARALLEL')) return false;
  const written = new Set<string>();
  for (const v of l.loops) for (const h of v.body) writes(h.body, written);
  return l.loops.every((v) => v.body.every((h) => reads(h.body).every((r) => !written.has(r.name) || (r.offset[2] === 0 && !r.variableK))));
}

/**
 * `versionK`: levels per tile of launches with versions where the tile cuts no K (codegen.versionedTileK).
 * `perLaunch` (codegen.tile 'auto'): each launch takes the tile of its kind (launchTiles.ts), chosen
 * with these schedule options, instead of the size library expansion marked it with.
 */
export interface TilingOptions {
  versionK?: number | false;
  perLaunch?: LaunchTileSchedule;
}

export function tiling(p: Program, opts: TilingOptions = {}): Program {
  const temporaries = temporaryUsers(p);
  const taken = new Set(p.arrays.map((a) => a.name));
  const decls: ArrayDecl[] = [];
  const body = mapStmtLists(p.body, (list) =>
    list.map((s) => {
      if (s.kind !== 'launch') return s;
      const t = tileLaunch(s, p, temporaries, taken, opts);
      decls.push(...t.decls);
      return t.launch;
    }),
  );
  return { ...p, arrays: [...p.arrays, ...decls], body };
}
