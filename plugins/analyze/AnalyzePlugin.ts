import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import type { MemoryReport } from '../../core/EntryBuild.js';
import { printExpr } from '../../core/ir/print.js';
import { bytesPerElement } from '../../core/runtime/ndarray.js';
import { tapStage } from '../../core/stagePlugin.js';

/**
 * analyze: the static memory report. Array sizes depend on runtime shapes, so each array
 * is reported with its symbolic shape, element size, storage role and pooling status.
 */
export class AnalyzePlugin implements OrchPlugin {
  readonly name = 'orch:analyze';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'analyze', this.name, (build) => {
      const p = build.program;
      if (!p) return;
      const arrays: MemoryReport['arrays'] = p.arrays.map((a) => ({
        name: a.name,
        role: a.role,
        dtype: a.dtype,
        axes: a.axes,
        bytesPerElement: bytesPerElement(a.dtype),
        shape: a.shape ? a.shape.map(printExpr) : [...a.axes].map((_, i) => `${a.name}.shape[${i}]`),
        pooled: !!a.pool,
        offset: a.pool ? printExpr(a.pool.offset) : undefined,
        zeroFill: a.pool ? a.pool.zeroFill : a.role !== 'arg',
      }));
      const totals: MemoryReport['totals'] = {};
      for (const role of ['arg', 'temporary', 'transient']) {
        const n = arrays.filter((a) => a.role === role).length;
        const pooled = arrays.filter((a) => a.role === role && a.pooled).length;
        totals[role] = {
          arrays: n,
          note: role === 'arg' ? 'owned by the caller' : pooled === n ? `${n} pooled (${role === 'temporary' ? 'temporary' : 'transient'} arena)` : `${pooled} of ${n} pooled`,
        };
      }
      // peak: the temporaries' arena plus the largest launch's transients
      const ends = (role: string) => p.arrays.filter((a) => a.role === role && a.pool).map((a) => printExpr(a.pool!.end));
      const peak = { temporaryArenaBytes: ends('temporary').pop() ?? '0', transientArenaBytes: ends('transient').length ? `max(${ends('transient').join(', ')})` : '0' };
      build.memory = { arrays, totals, peak };
    });
  }
}
