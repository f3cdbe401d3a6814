import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import type { MemoryReport } from '../../core/EntryBuild.js';
import { printExpr } from '../../core/ir/print.js';
import { launches } from '../../core/ir/visit.js';
import { bytesPerElement } from '../../core/runtime/ndarray.js';
import { tapStage } from '../../core/stagePlugin.js';

/**
 * analyze: the static memory report. Array sizes depend on runtime shapes, so each array
 * is reported with its symbolic shape, element size, storage role, where it lives (host,
 * or device memory in a CUDA build) and pooling status.
 */
export class AnalyzePlugin implements OrchPlugin {
  readonly name = 'orch:analyze';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'analyze', this.name, (build) => {
      const p = build.program;
      if (!p) return;
      const { backend } = compiler.config;
      // a backend that runs tiles keeps these per tile, sized to the tile and its halo, not to the domain
      const perTile = new Map<string, { tile: string; zeroFill: boolean }>();
      for (const l of backend.tiles ? launches(p.body) : []) {
        const size = [...(l.tile?.size ?? []), ...(l.tile?.k ? [l.tile.k] : [])].join('x');
        for (const x of l.tile?.local ?? []) perTile.set(x.name, { tile: `per ${size} tile`, zeroFill: x.zeroFill });
      }
      const arrays: MemoryReport['arrays'] = p.arrays.map((a) => ({
        name: a.name,
        role: a.role,
        dtype: a.dtype,
        axes: a.axes,
        bytesPerElement: bytesPerElement(a.dtype),
        shape: a.shape ? a.shape.map(printExpr) : [...a.axes].map((_, i) => `${a.name}.shape[${i}]`),
        pooled: backend.arenas ? !!a.pool : a.role !== 'arg',
        offset: a.pool ? printExpr(a.pool.offset) : undefined,
        zeroFill: a.pool ? a.pool.zeroFill : a.role !== 'arg',
        storage: backend.storage,
        ...perTile.get(a.name),
      }));
      // a backend without arenas says where its arrays come from; arena notes count what pooling placed
      const notes = backend.memoryNotes;
      const totals: MemoryReport['totals'] = {};
      for (const role of ['arg', 'temporary', 'transient']) {
        const n = arrays.filter((a) => a.role === role).length;
        const pooled = arrays.filter((a) => a.role === role && a.pooled).length;
        const tiled = arrays.filter((a) => a.role === role && a.tile).length;
        const poolNote = (pooled === n ? `${n} pooled (${role} arena)` : `${pooled} of ${n} pooled`) + (tiled ? `, ${tiled} per tile (thread tile scratch)` : '');
        totals[role] = { arrays: n, note: notes ? notes[role as keyof typeof notes] : role === 'arg' ? 'owned by the caller' : poolNote };
      }
      // peak: the temporaries' arena plus the largest launch's transients
      const ends = (role: string) => p.arrays.filter((a) => a.role === role && a.pool).map((a) => printExpr(a.pool!.end));
      const peak = { temporaryArenaBytes: ends('temporary').pop() ?? '0', transientArenaBytes: ends('transient').length ? `max(${ends('transient').join(', ')})` : '0' };
      build.memory = { arrays, totals, peak };
    });
  }
}
