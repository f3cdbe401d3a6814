import type { CallbackDecl, Expr, HostStmt } from '../ir/types.js';
import { coerce, compileExpr, type Ev, type ExprScope } from './compileExpr.js';
import { callbackNotRunnable, callbackRaised, callbackRangeStepZero, callbackReturnedNone } from '../diagnostics/callbackErrors.js';

/** A host callback as the interpreter (or a Node host of a compiled library) calls it. */
export type HostFn = (args: number[]) => number | undefined;

/**
 * A callback's body evaluated by orch (scalar code only), with Python's semantics as
 * the rest of the interpreter has them. Fails, naming the line, for a callback whose
 * body orch cannot evaluate: only its real host (Python) can run it.
 */
export function hostFunction(decl: CallbackDecl): HostFn {
  const host = decl.host;
  if (!host) {
    const why = decl.why;
    throw callbackNotRunnable(decl.name, why?.message ?? 'its body is not scalar code', why?.loc ?? decl.loc);
  }
  const scalars = new Map(host.scalars.map((v) => [v.name, { v: 0, dtype: v.dtype }]));
  const scope: ExprScope = {
    scalar: (name) => {
      const s = scalars.get(name);
      if (!s) throw new Error(`interpreter: unknown scalar ${name}`);
      return s;
    },
    array: (name) => {
      throw new Error(`interpreter: unknown array ${name}`);
    },
    index: (name) => {
      throw new Error(`interpreter: unknown array ${name}`);
    },
    kIndex: () => {
      throw new Error('interpreter: a callback reads the K index');
    },
  };
  const compiled = new Map<Expr, Ev>();
  const value = (e: Expr): number => {
    let f = compiled.get(e);
    if (!f) compiled.set(e, (f = compileExpr(e, scope)));
    return f();
  };
  const RETURN = Symbol('return');
  let returned: number | undefined;
  const exec = (stmts: HostStmt[]): typeof RETURN | undefined => {
    for (const s of stmts) {
      switch (s.kind) {
        case 'set': {
          const v = scalars.get(s.name)!;
          v.v = coerce(value(s.value), v.dtype);
          break;
        }
        case 'if':
          if (exec(value(s.cond) ? s.then : s.else)) return RETURN;
          break;
        case 'while':
          while (value(s.cond)) if (exec(s.body)) return RETURN;
          break;
        case 'for': {
          const v = scalars.get(s.var)!;
          const [start, stop, step] = [value(s.start), value(s.stop), value(s.step)];
          if (step === 0) throw callbackRangeStepZero(decl.name, s.loc);
          for (let i = start; step > 0 ? i < stop : i > stop; i += step) {
            v.v = i;
            if (exec(s.body)) return RETURN;
          }
          break;
        }
        case 'return':
          returned = s.value ? value(s.value) : undefined;
          return RETURN;
        case 'raise':
          throw callbackRaised(decl.name, s.message, s.loc);
      }
    }
    return undefined;
  };
  return (args: number[]) => {
    decl.params.forEach((p, n) => (scalars.get(p.name)!.v = coerce(args[n], p.dtype)));
    returned = undefined;
    exec(host.body);
    if (decl.result === null) return undefined;
    if (returned === undefined) {
      throw callbackReturnedNone(decl.name, decl.result, decl.loc);
    }
    return coerce(returned, decl.result);
  };
}
