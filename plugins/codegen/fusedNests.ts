import type { Delay } from '../../core/ir/nestFusion.js';
import type { HLoop } from '../../core/ir/types.js';
import type { Codegen, PointContext } from './Codegen.js';

/**
 * The nests of a PARALLEL loop in a tile, fused (codegen.fuseNests; delays from
 * core/ir/nestFusion.ts): one loop over the tile's two horizontal axes in the preset's order
 * where, at iteration (r, c), each nest in turn computes the whole K column of its point
 * (r - d[0], c - d[1]) if that point is in its range. A temporary's column is then read a
 * few columns after it was written, from L1, instead of after the whole tile box (hdiff at
 * 4x32 tiles: lap, flx, fly are 84-130 KB each, so unfused they are read back from L2).
 * Each point's statements and K loop are those of the unfused nest, so results are bitwise
 * the same. `order` is the tile's loop order (K innermost); `kHeader` the K loop's header.
 */
export function fusedNests(cg: Codegen, nests: readonly HLoop[], delays: readonly Delay[], order: string, ctx: PointContext, kHeader: string): void {
  const w = cg.w;
  const [a, b] = [order[0].toLowerCase(), order[1].toLowerCase()];
  const span = (axis: string, d: number, end: 'lo' | 'hi') => nests.map((_, n) => `${axis}${end}${n} + ${delays[n][d]}`).join(', ');
  w.line(`const int64_t rlo = std::min({${span(a, 0, 'lo')}}), rhi = std::max({${span(a, 0, 'hi')}});`);
  w.line(`const int64_t clo = std::min({${span(b, 1, 'lo')}}), chi = std::max({${span(b, 1, 'hi')}});`);
  w.open('for (int64_t r = rlo; r < rhi; ++r) {');
  w.open('for (int64_t c = clo; c < chi; ++c) {');
  nests.forEach((h, n) => {
    w.open('{');
    w.line(`const int64_t ${a} = r - ${delays[n][0]}, ${b} = c - ${delays[n][1]};`);
    w.open(`if (${a} >= ${a}lo${n} && ${a} < ${a}hi${n} && ${b} >= ${b}lo${n} && ${b} < ${b}hi${n}) {`);
    // the points of one nest are independent: the K loop may be vectorized freely
    w.directive('#pragma GCC ivdep');
    w.open(kHeader);
    cg.points.pointLocals(h, ctx);
    cg.points.stmts(h.body, ctx);
    w.close();
    w.close();
    w.close();
  });
  w.close();
  w.close();
}
