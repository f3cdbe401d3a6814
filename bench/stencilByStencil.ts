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
    switch (e.kind) {
      case 'lit':
        return Number(e.value);
      case 'scalar':
        return this.scalars.get(e.name)!;
      case 'shape':
        return this.arrays.get(e.name)!.shape[e.axis];
      case 'kindex':
        throw new Error('the stencil-by-stencil baseline does not read the K index');
      case 'cast':
        return e.dtype.startsWith('int') ? Math.trunc(this.eval(e.arg)) : this.eval(e.arg);
      case 'unary':
        return e.op === '-' ? -this.eval(e.arg) : e.op === 'not' ? Number(!this.eval(e.arg)) : this.eval(e.arg);
      case 'ternary':
        return this.eval(e.cond) ? this.eval(e.then) : this.eval(e.else);
      case 'call': {
        const xs = e.args.map((a) => this.eval(a));
        const f = (Math as unknown as Record<string, (...a: number[]) => number>)[e.fn === 'arctan2' ? 'atan2' : e.fn];
        return f(...xs);
      }
      case 'binary': {
        const a = this.eval(e.left);
        const b = this.eval(e.right);
        switch (e.op) {
          case '+':
            return a + b;
          case '-':
            return a - b;
          case '*':
            return a * b;
          case '/':
            return a / b;
          case '//':
            return Math.floor(a / b);
          case '%':
            return ((a % b) + b) % b;
          case '**':
            return a ** b;
          case '<':
            return Number(a < b);
          case '<=':
            return Number(a <= b);
          case '>':
            return Number(a > b);
          case '>=':
            return Number(a >= b);
          case '==':
            return Number(a === b);
          case '!=':
            return Number(a !== b);
          case 'and':
            return Number(a && b);
          case 'or':
            return Number(a || b);
        }
      }
      // eslint-disable-next-line no-fallthrough
      case 'field':
        throw new Error('field access at host level');
    }
  }
}
