import { evaluate } from '../core/ir/evaluate.js';
import { printExpr } from '../core/ir/print.js';
import type { Expr, Program, PStmt } from '../core/ir/types.js';
import { buildEntryArgs, type EntryInterface } from '../core/runtime/callArgs.js';
import { allocate, type NDArray } from '../core/runtime/ndarray.js';
import type { NativeLibrary } from '../core/runtime/NativeLibrary.js';

/**
 * The baseline orchestration replaces: every stencil its own library, called in sequence
 * by the host, which evaluates the program's loops, branches and scalar arithmetic and
 * marshals each call's arguments (as NDSL does stencil by stencil from Python).
 */
export interface StencilLibrary {
  lib: NativeLibrary;
  iface: EntryInterface;
}

export class StencilByStencil {
  private scalars = new Map<string, number>();
  private arrays = new Map<string, NDArray>();

  constructor(
    readonly program: Program,
    readonly libraries: Record<string, StencilLibrary>,
  ) {}

  run(args: Record<string, NDArray | number | boolean>): void {
    this.scalars.clear();
    this.arrays.clear();
    for (const p of this.program.params) {
      const v = args[p.name];
      if (p.kind === 'field') this.arrays.set(p.name, v as NDArray);
      else this.scalars.set(p.name, Number(v));
    }
    for (const a of this.program.arrays) {
      if (a.role === 'temporary') this.arrays.set(a.name, allocate(a.dtype, a.shape!.map((e) => this.eval(e))));
    }
    this.block(this.program.body);
  }

  private block(stmts: PStmt[]): void {
    for (const s of stmts) {
      switch (s.kind) {
        case 'set':
          this.scalars.set(s.name, this.eval(s.value));
          break;
        case 'for': {
          const stop = this.eval(s.stop);
          const step = this.eval(s.step);
          for (let i = this.eval(s.start); step > 0 ? i < stop : i > stop; i += step) {
            this.scalars.set(s.var, i);
            this.block(s.body);
          }
          break;
        }
        case 'while':
          while (this.eval(s.cond)) this.block(s.body);
          break;
        case 'if':
          this.block(this.eval(s.cond) ? s.then : s.else);
          break;
        case 'call': {
          const { lib, iface } = this.libraries[s.stencil];
          const fields: Record<string, NDArray> = {};
          for (const [param, arr] of Object.entries(s.fields)) fields[param] = this.arrays.get(arr)!;
          const scalars: Record<string, number> = {};
          for (const [param, e] of Object.entries(s.scalars)) scalars[param] = this.eval(e);
          const origin: Record<string, number[]> = {};
          for (const [param, o] of Object.entries(s.origins)) origin[param] = o.map((e) => this.eval(e));
          lib.run(buildEntryArgs(iface, { fields, scalars, origin, domain: s.domain.map((e) => this.eval(e)) }));
          break;
        }
        case 'launch':
          throw new Error('stencil-by-stencil runs the program before library expansion');
        case 'callback':
          throw new Error('the stencil-by-stencil baseline has no host callbacks');
        case 'halo':
          throw new Error('the stencil-by-stencil baseline has no halo exchanges');
      }
    }
  }

  private eval(e: Expr): number {
    const v = evaluate(e, { scalar: (n) => this.scalars.get(n), shape: (a, axis) => this.arrays.get(a)?.shape[axis] });
    if (v === undefined) throw new Error(`the stencil-by-stencil host cannot evaluate ${printExpr(e)}`);
    return v;
  }
}
