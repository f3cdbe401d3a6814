import type { Codegen, PointContext } from './Codegen.js';

/**
 * Code that runs on a team of threads when a condition holds (enough points) and on the
 * calling thread otherwise; its worksharing loops are orphaned `omp for`s. The code is a
 * lambda called from either branch: `omp parallel if(false)` would still set up a team of
 * one, which costs a small launch more than its loops (about 0.3 us per launch). It
 * captures by value (with captures by reference, gcc no longer hoisted region masks out of
 * the K loop: del-n damping ran 4x slower), except the error records it must update.
 * Regions nest (a tiled launch's region holds no other), so their conditions are a stack.
 */
export class ThreadedRegions {
  private readonly conds: string[] = [];

  constructor(private readonly cg: Codegen) {}

  open(threaded: boolean, cond: string, ctx: PointContext, byRef: string[] = []): void {
    this.cg.w.open('{');
    const refs = [...byRef, ...(ctx.variableK ? ['vkerr'] : [])].map((r) => `, &${r}`).join('');
    if (threaded) {
      // (with codegen.recomputeTemporaries a nest holds many point locals; inlined into the
      // entry function, g++ left its K loop scalar: ppm's stencil library 51 -> 14.5 us a call
      // kept out of line, the orchestrated one was not inlined)
      const attr = this.cg.opts.recomputeTemporaries ? ' __attribute__((noinline))' : '';
      this.cg.w.open(`const auto region = [=${refs}]()${attr} {`);
      this.cg.regionScalars.open();
    }
    this.conds.push(cond);
  }

  close(threaded: boolean): void {
    const w = this.cg.w;
    const cond = this.conds.pop();
    if (threaded) {
      this.cg.regionScalars.close();
      w.close('};');
      w.open(`if (${cond}) {`);
      w.directive('#pragma omp parallel');
      w.line('region();');
      w.reopen('} else {');
      w.line('region();');
      w.close();
    }
    w.close();
  }
}
