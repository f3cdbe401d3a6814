import { rollingRows, type Delay } from '../../core/ir/nestFusion.js';
import type { Launch, Tiling } from '../../core/ir/types.js';
import { reads, writes } from '../../core/ir/uses.js';
import type { Codegen } from './Codegen.js';
import type { TileVersionCode } from './tileVersions.js';

/** Code a fused loop (fusedNests.ts) emits around its rows (with strips: around each strip's rows). */
export interface RowHooks {
  /** before the row loop (of each strip) */
  before(): void;
  /** at the start of row `r`, before any nest runs in it */
  rowStart(): void;
  /** at the end of row `r` */
  rowEnd(): void;
  /** after the row loop (of each strip) */
  after(): void;
}

interface Stream {
  name: string;
  fill: boolean;
  /** at row r the nests touch the version's rows up to r + ahead (reads and writes) */
  ahead: number;
  /** and write its rows down to r - behind: rows below that are final */
  behind: number;
  /** the same along the columns, for strips: at column c up to c + aheadC, down to c - behindC */
  aheadC: number;
  behindC: number;
  /** the next row to fill; the first row not committed */
  next: string;
  done: string;
}

/**
 * Versions of in-place arrays (tileVersions.ts) filled and committed row by row inside the
 * tile's fused loop (codegen.streamVersions) instead of over the whole tile around it. With
 * whole-tile copies, a tile's versions (the dycore's u, v, delp, p: 36x124x16 points each at
 * 128x128x80) no longer fit in L2 by the time the nests read them, nor the nests' results by
 * the time they are committed: each copy went through L3 twice. Streamed, a row is filled
 * just before the fused loop first touches it and committed just after its last write, so
 * both copies meet it in cache. Each point is copied once, as before, and the nests read
 * and write the same values: results are bitwise the same.
 *
 * Only for a tile of one PARALLEL loop fused along I (the row axis of the fill and the
 * commit); undefined elsewhere, and the whole-tile copies stay.
 *
 * With strips (codegen.fusedStrip: the loop runs every row of a strip of columns before the
 * next; `delays` then hold along both axes) each strip streams its own columns the same way:
 * those its iterations reach first (up to the strip's last column + aheadC) are filled, those
 * whose last write falls in it (from its first column - behindC) committed; the first and
 * last strips take the box's edges.
 *
 * With codegen.rollVersions a streamed version keeps only the rows the fused loop has in
 * flight, as fused nests' temporaries do (core/ir/nestFusion.ts rollingRows; added to
 * `rolled`): a row is filled when the loop first touches it and committed by its last
 * write, so its slot is free when the next row that maps to it is filled. A tile's versions
 * then take a few rows whatever its size: del-n's q in a 64x128x16 tile was 72x136x16
 * (1.25 MB, past the 1 MB L2), and its lines went to L3 and back between fill and commit.
 * (Not with strips: a strip's rows are not the loop's rows, so nothing rolls there.)
 */
export function streamedVersions(cg: Codegen, s: Launch, tile: Tiling, versions: TileVersionCode, delays: Delay[] | undefined, box: (name: string) => string, rolled: Map<string, number>, strip?: number): StreamedVersions | undefined {
  if (!cg.opts.streamVersions || !tile.versioned?.length || !delays || s.loops.length !== 1 || cg.order[0] !== 'I' || cg.order[2] !== 'K') return undefined;
  const body = s.loops[0].body;
  if (cg.opts.rollVersions && strip === undefined) {
    for (const { name } of versions.arrays()) {
      const rows = rollingRows(s.loops[0], delays, 0, name);
      if (rows === undefined) continue;
      rolled.set(name, rows);
      versions.roll(name, rows - 1);
    }
  }
  const streams = versions.arrays().map(({ name, fill }): Stream => {
    const ahead = [-Infinity, -Infinity];
    const behind = [0, 0];
    body.forEach((h, n) => {
      const at = reads(h.body)
        .filter((r) => r.name === name)
        .map((r) => r.offset);
      // a write must find its row filled, or the fill would overwrite it
      if (writes(h.body).has(name)) {
        at.push([0, 0, 0]);
        for (const d of [0, 1]) behind[d] = Math.max(behind[d], delays[n][d]);
      }
      for (const o of at) for (const d of [0, 1]) ahead[d] = Math.max(ahead[d], o[d] - delays[n][d]);
    });
    const [a0, a1] = ahead.map((a) => (Number.isFinite(a) ? a : 0));
    return { name, fill, ahead: a0, behind: behind[0], aheadC: a1, behindC: behind[1], next: cg.ids.local(`stream fill ${name}`), done: cg.ids.local(`stream commit ${name}`) };
  });
  return new StreamedVersions(cg, versions, streams, box, strip !== undefined);
}

export class StreamedVersions implements RowHooks {
  constructor(
    private readonly cg: Codegen,
    private readonly versions: TileVersionCode,
    private readonly streams: Stream[],
    private readonly box: (name: string) => string,
    /** inside a strip of columns [cs, ce) of [clo, chi) (fusedNests.ts) */
    private readonly strips: boolean,
  ) {}

  /** The strip's columns of the version's box to fill: [lo, hi]. */
  private fillCols(x: Stream): { lo: string; hi: string } | undefined {
    if (!this.strips) return undefined;
    const b = this.box(x.name);
    return { lo: `(cs == clo ? ${b}_j0 : cs + ${x.aheadC})`, hi: `(ce == chi ? ${b}_j1 : ce - 1 + ${x.aheadC})` };
  }

  /** The strip's columns to commit: [lo, hi). */
  private commitCols(x: Stream): { lo: string; hi: string } | undefined {
    if (!this.strips) return undefined;
    return { lo: `(cs == clo ? INT64_MIN : cs - ${x.behindC})`, hi: `(ce == chi ? INT64_MAX : ce - ${x.behindC})` };
  }

  private fill(x: Stream, hi: string): void {
    const w = this.cg.w;
    w.open(`if (${x.next} <= ${hi}) {`);
    this.versions.fill(this.box, this.cg.order, () => ({ lo: x.next, hi }), x.name, this.fillCols(x));
    w.line(`${x.next} = ${hi} + 1;`);
    w.close();
  }

  private commit(x: Stream, hi: string): void {
    const w = this.cg.w;
    w.open(`if (${x.done} < ${hi}) {`);
    this.versions.commit({ lo: x.done, hi }, x.name, this.commitCols(x));
    w.line(`${x.done} = ${hi};`);
    w.close();
  }

  before(): void {
    for (const x of this.streams) {
      if (x.fill) this.cg.w.line(`int64_t ${x.next} = ${this.box(x.name)}_i0;`);
      this.cg.w.line(`int64_t ${x.done} = INT64_MIN;`);
    }
  }

  rowStart(): void {
    for (const x of this.streams) if (x.fill) this.fill(x, `r + ${x.ahead}`);
  }

  rowEnd(): void {
    for (const x of this.streams) this.commit(x, `r - ${x.behind} + 1`);
  }

  after(): void {
    // (committed first: a rolled version's slots are reused by the rows filled after)
    for (const x of this.streams) this.commit(x, 'INT64_MAX');
    // (the rows of the box past the last row's reach: none where the box is what the nests touch)
    for (const x of this.streams) if (x.fill) this.fill(x, `${this.box(x.name)}_i1`);
  }
}
