import type { Delay } from '../../core/ir/nestFusion.js';
import type { HLoop } from '../../core/ir/types.js';
import type { Codegen, PointContext } from './Codegen.js';
import { regionVersions } from './regionVersions.js';
import type { RowHooks } from './streamedVersions.js';

/**
 * The nests of a PARALLEL loop in a tile, fused (codegen.fuseNests; delays from
 * core/ir/nestFusion.ts): one loop over the tile's two horizontal axes in the preset's order
 * where, at iteration (r, c), each nest in turn computes the whole K column of its point
 * (r - d[0], c - d[1]) if that point is in its range. A temporary's column is then read a
 * few columns after it was written, from L1, instead of after the whole tile box (hdiff at
 * 4x32 tiles: lap, flx, fly are 84-130 KB each, so unfused they are read back from L2).
 * With `jam` (levelsJam: nothing written is accessed at a K offset), where every nest's
 * point is in range the nests share one K loop, level by level: one loop's control and
 * set-up instead of one per nest. Each point's statements are those of the unfused nest,
 * so results are bitwise the same. `order` is the tile's loop order (K innermost);
 * `kHeader` the K loop's header. With `strip` (codegen.fusedStrip; `delays` then hold along
 * each axis) the columns run in strips of that many, every row of a strip before the next:
 * what a nest reads back was written at most a few rows of one strip ago, not of the tile.
 */
export function fusedNests(cg: Codegen, nests: readonly HLoop[], delays: readonly Delay[], order: string, ctx: PointContext, kHeader: string, jam: boolean, rows?: RowHooks, strip?: number): void {
  const w = cg.w;
  const [a, b] = [order[0].toLowerCase(), order[1].toLowerCase()];
  const shifted = (axis: string, d: number, end: 'lo' | 'hi') => nests.map((_, n) => `${axis}${end}${n} + ${delays[n][d]}`).join(', ');
  const at = (n: number) => `const int64_t ${a} = r - ${delays[n][0]}, ${b} = c - ${delays[n][1]};`;
  const body = (h: HLoop) => {
    cg.points.pointLocals(h, ctx);
    cg.points.stmts(h.body, ctx);
  };
  w.line(`const int64_t rlo = std::min({${shifted(a, 0, 'lo')}}), rhi = std::max({${shifted(a, 0, 'hi')}});`);
  w.line(`const int64_t clo = std::min({${shifted(b, 1, 'lo')}}), chi = std::max({${shifted(b, 1, 'hi')}});`);
  // columns where every nest's point is in range (along the inner axis)
  if (jam) w.line(`const int64_t cin_lo = std::max({${shifted(b, 1, 'lo')}}), cin_hi = std::min({${shifted(b, 1, 'hi')}});`);
  if (strip) {
    w.open(`for (int64_t cs = clo; cs < chi; cs += ${strip}) {`);
    w.line(`const int64_t ce = std::min<int64_t>(cs + ${strip}, chi);`);
  }
  rows?.before();
  w.open('for (int64_t r = rlo; r < rhi; ++r) {');
  rows?.rowStart();
  if (jam) w.line(`const bool row_in = ${nests.map((_, n) => `r - ${delays[n][0]} >= ${a}lo${n} && r - ${delays[n][0]} < ${a}hi${n}`).join(' && ')};`);
  w.open(strip ? 'for (int64_t c = cs; c < ce; ++c) {' : 'for (int64_t c = clo; c < chi; ++c) {');
  if (jam) {
    w.open('if (row_in && c >= cin_lo && c < cin_hi) {');
    // the points of one level are independent of the other levels: vectorized freely
    w.directive('#pragma GCC ivdep');
    w.open(kHeader);
    nests.forEach((h, n) => {
      w.open('{');
      w.line(at(n));
      body(h);
      w.close();
    });
    w.close();
    w.line('continue;');
    w.close();
  }
  nests.forEach((h, n) => {
    w.open('{');
    w.line(at(n));
    w.open(`if (${a} >= ${a}lo${n} && ${a} < ${a}hi${n} && ${b} >= ${b}lo${n} && ${b} < ${b}hi${n}) {`);
    regionVersions(cg, h, () => {
      // the points of one nest are independent: the K loop may be vectorized freely
      w.directive('#pragma GCC ivdep');
      w.open(kHeader);
      body(h);
      w.close();
    });
    w.close();
    w.close();
  });
  w.close();
  rows?.rowEnd();
  w.close();
  rows?.after();
  if (strip) w.close();
}
