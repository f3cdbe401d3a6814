import type { Launch } from './types.js';
import type { Tiling } from './types.js';
import { reads, writes } from './uses.js';

/** Where one nest touches a tile-local array: its smallest and largest offsets per axis. */
export interface TileBox {
  /** the VLoop and the HLoop within it */
  vi: number;
  n: number;
  i: [number, number];
  j: [number, number];
  k: [number, number];
}

/**
 * Per tile-local array (and per versioned array: its tile version): the nests touching it,
 * with the smallest and largest I, J and K offsets they touch it at.
 */
export function tileLocalBoxes(s: Launch, tile: Tiling): Map<string, TileBox[]> {
  return accessBoxes(s, new Set([...tile.local.map((l) => l.name), ...(tile.versioned ?? []).map((x) => x.name)]));
}

/** Per array of `local`: the nests touching it, with the offsets they touch it at (none may read it at a variable K offset). */
export function accessBoxes(s: Launch, local: ReadonlySet<string>): Map<string, TileBox[]> {
  const out = new Map<string, TileBox[]>();
  s.loops.forEach((v, vi) =>
    v.body.forEach((h, n) => {
      const touched = new Map<string, number[][]>();
      const add = (name: string, offset: readonly number[]) => {
        if (local.has(name)) touched.set(name, [...(touched.get(name) ?? []), [...offset]]);
      };
      // tile-local arrays are never read at variable K offsets (tiling pass)
      for (const r of reads(h.body)) add(r.name, r.offset);
      for (const name of writes(h.body)) add(name, [0, 0, 0]);
      for (const [name, offs] of touched) {
        const span = (a: number): [number, number] => [Math.min(...offs.map((o) => o[a])), Math.max(...offs.map((o) => o[a]))];
        out.set(name, [...(out.get(name) ?? []), { vi, n, i: span(0), j: span(1), k: span(2) }]);
      }
    }),
  );
  return out;
}
