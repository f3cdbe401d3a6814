import type { HLoop, Launch, Range, VLoop } from './types.js';
import { regionsOnly } from './regionsOnly.js';
import { reads, writes } from './uses.js';

/**
 * What the backends and the interpreter share about an array a tiled launch versions per
 * tile (`Tiling.versioned`, plugins/simplify/inPlaceVersions.ts): how far a tile touches
 * it beyond its own cell, and which nests' points a tile commits.
 *
 * Tiles partition every nest's range into cells along the tile grid (the first and last
 * cell along an axis reach the range's ends). A tile reads its neighbours' cells only
 * within its reach of the cut between them, so a point a tile commits must wait for the
 * other tiles (go through the shadow) exactly when it lies within that reach of one of its
 * own cell's cuts: below the cut at `a * ti`, `reach[1]` points above it; below the cut
 * at `(a + 1) * ti`, `reach[0]` points below it (J alike).
 */

/** [below in I, above in I, below in J, above in J]: how far beyond its cell a tile touches array `name`. */
export type Reach = [number, number, number, number];

export function versionReach(l: Launch, name: string): Reach {
  const reach: Reach = [0, 0, 0, 0];
  for (const v of l.loops) {
    for (const h of v.body) {
      const offs = reads(h.body)
        .filter((r) => r.name === name)
        .map((r) => r.offset);
      if (writes(h.body).has(name)) offs.push([0, 0, 0]);
      if (!offs.length) continue;
      const g = h.grow ?? [0, 0, 0, 0];
      const side = [
        g[0] + Math.max(0, ...offs.map((o) => -o[0])),
        g[1] + Math.max(0, ...offs.map((o) => o[0])),
        g[2] + Math.max(0, ...offs.map((o) => -o[1])),
        g[3] + Math.max(0, ...offs.map((o) => o[1])),
      ];
      for (let d = 0; d < 4; d++) reach[d] = Math.max(reach[d], side[d]);
    }
  }
  return reach;
}

/** A nest writing a versioned array, as the loop indices (`vi`, `n`) of the launch; one per distinct range. */
export interface VersionWriter {
  vi: number;
  n: number;
  v: VLoop;
  h: HLoop;
}

export function versionWriters(l: Launch, name: string): VersionWriter[] {
  const out: VersionWriter[] = [];
  const seen = new Set<string>();
  const plain = new Set<string>();
  const key = (r: Range) => JSON.stringify([r.lo, r.hi]);
  const rangeKey = (v: VLoop, h: HLoop) => `${key(v.k)}|${key(h.i)}|${key(h.j)}`;
  l.loops.forEach((v, vi) =>
    v.body.forEach((h, n) => {
      if (!writes(h.body).has(name)) return;
      // nests over the same points commit the same points once; a nest writing only in
      // regions commits only their points (regionsOnly.ts), a plain one over its range all
      const regions = regionsOnly(h);
      const k = `${rangeKey(v, h)}${regions ? `|${JSON.stringify(regions)}` : ''}`;
      if (!regions) plain.add(k);
      if (seen.has(k)) return;
      seen.add(k);
      out.push({ vi, n, v, h });
    }),
  );
  // a plain writer over the same range commits the region writer's points too
  return out.filter((w) => !regionsOnly(w.h) || !plain.has(rangeKey(w.v, w.h)));
}
