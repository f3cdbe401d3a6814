import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { simulateRanks } from '../core/interpreter/RankSimulation.js';
import type { Program } from '../core/ir/types.js';
import type { Boundary } from '../core/layout/HaloTopology.js';
import { codePathOfRank, codePaths, type CodePath, type RankLayout } from '../core/layout/RankLayout.js';
import { allocate, type NDArray } from '../core/runtime/ndarray.js';
import { REPO } from './TempProject.js';

/**
 * One global domain cut into the local arrays of a layout's ranks (NDSL's numbering: rank
 * r at column r % x, row r / x), and the ranks' results put back together: the halo tests'
 * bookkeeping.
 */
export const HALO = 3;

export interface GlobalDomain {
  /** compute points along I and J, and levels */
  n: number;
  nz: number;
}

/** Deterministic, irregular values over the whole array, halo included. */
export function globalField(d: GlobalDomain, seed: number): NDArray {
  const size = d.n + 2 * HALO;
  const a = allocate('float64', [size, size, d.nz]);
  const data = a.data as Float64Array;
  for (let i = 0; i < size; i++) {
    for (let j = 0; j < size; j++) {
      for (let k = 0; k < d.nz; k++) data[(i * size + j) * d.nz + k] = 0.1 + (((i * 7 + j * 13 + k * 5 + seed * 3) % 17) / 17) * Math.cos(i * 0.3 + seed) + 0.01 * j;
    }
  }
  return a;
}

export function localShape(d: GlobalDomain, layout: RankLayout): [number, number, number] {
  return [d.n / layout.x + 2 * HALO, d.n / layout.y + 2 * HALO, d.nz];
}

/** The local array of `rank`: its compute domain and the halo around it, from the global array. */
export function scatter(global: NDArray, d: GlobalDomain, layout: RankLayout, rank: number): NDArray {
  const [sx, sy, nz] = localShape(d, layout);
  const col = rank % layout.x;
  const row = Math.floor(rank / layout.x);
  const gsize = d.n + 2 * HALO;
  const out = allocate('float64', [sx, sy, nz]);
  const src = global.data as Float64Array;
  const dst = out.data as Float64Array;
  for (let i = 0; i < sx; i++) {
    for (let j = 0; j < sy; j++) {
      const gi = col * (sx - 2 * HALO) + i;
      const gj = row * (sy - 2 * HALO) + j;
      for (let k = 0; k < nz; k++) dst[(i * sy + j) * nz + k] = src[(gi * gsize + gj) * nz + k];
    }
  }
  return out;
}

/** The global compute domain (n x n x nz, no halo) from the ranks' local arrays. */
export function gather(locals: NDArray[], d: GlobalDomain, layout: RankLayout): Float64Array {
  const out = new Float64Array(d.n * d.n * d.nz);
  locals.forEach((a, rank) => {
    const [sx, sy, nz] = a.shape;
    const col = rank % layout.x;
    const row = Math.floor(rank / layout.x);
    const data = a.data as Float64Array;
    for (let i = 0; i < sx - 2 * HALO; i++) {
      for (let j = 0; j < sy - 2 * HALO; j++) {
        const gi = col * (sx - 2 * HALO) + i;
        const gj = row * (sy - 2 * HALO) + j;
        for (let k = 0; k < nz; k++) out[(gi * d.n + gj) * nz + k] = data[((i + HALO) * sy + j + HALO) * nz + k];
      }
    }
  });
  return out;
}

/** Index of the first point where two results differ (-1: bit for bit equal, NaN included). */
export function firstDifference(a: Float64Array, b: Float64Array): number {
  if (a.length !== b.length) return 0;
  for (let n = 0; n < a.length; n++) if (!Object.is(a[n], b[n])) return n;
  return -1;
}

export const HALO_FIXTURE = path.join(REPO, 'fixtures/layouts/halo_diffusion.py');
/** The three fields of the fixture's programs, with their seeds. */
export const HALO_FIELDS = ['q', 'r', 's'] as const;

/** The fixture entry's program (interpreter IR) for each code path of `layout`. */
export async function programsFor(entry: string, layout: RankLayout, d: GlobalDomain): Promise<Map<CodePath, Program>> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'orch-halo-sim-'));
  const config = { ...(await resolveConfig({ configFile: null, cwd: root })), cacheRoot: root, verifyIR: true };
  const [nx, ny, nz] = localShape(d, layout);
  const target = { layout, domain: [nx - 2 * HALO, ny - 2 * HALO, nz] as [number, number, number], halo: HALO };
  const pipeline = { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined };
  const out = new Map<CodePath, Program>();
  for (const cp of codePaths(layout)) {
    const r = await new Compiler(config, pipeline, cp, target).build({ modules: [HALO_FIXTURE], entry, externals: {}, defines: {}, mode: 'python' });
    if (r.errors.length) throw new Error(r.errors.map((e) => formatDiagnostic(e)).join('\n'));
    out.set(cp, r.entries[0].program!);
  }
  return out;
}

/** Every rank's local q, r, s of the global fields (seeds 1, 2, 3). */
export function rankInputs(d: GlobalDomain, layout: RankLayout): Record<(typeof HALO_FIELDS)[number], NDArray>[] {
  const globals = HALO_FIELDS.map((_, n) => globalField(d, n + 1));
  return Array.from({ length: layout.x * layout.y }, (_, rank) => ({ q: scatter(globals[0], d, layout, rank), r: scatter(globals[1], d, layout, rank), s: scatter(globals[2], d, layout, rank) }));
}

/** The fixture's `entry` on every rank of `layout`, simulated by the interpreter; q, r and s gathered. */
export async function simulate(entry: string, layout: RankLayout, boundary: Boundary, d: GlobalDomain, nu = 0.01): Promise<Float64Array[]> {
  const programs = await programsFor(entry, layout, d);
  const args = rankInputs(d, layout).map((f) => ({ ...f, nu }));
  simulateRanks(args.map((_, rank) => programs.get(codePathOfRank(layout, rank))!), args, layout, boundary);
  return HALO_FIELDS.map((f) => gather(args.map((a) => a[f]), d, layout));
}
