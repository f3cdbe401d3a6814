import { isIntDType } from '../../core/ir/dtypes.js';
import { didYouMean } from '../../core/diagnostics.js';
import { nameNotDefined, notEvaluated } from '../../core/diagnostics/codes.js';
import type { Program, SourceLoc } from '../../core/ir/types.js';
import type { PyExpr } from '../../core/python/ast.js';
import type { Term } from './ExprLowering.js';
import { describeValue, type FunctionInfo, type Value } from '../../core/frontend/values.js';
import { ClosureBinder } from './ClosureBinder.js';
import { checkDefine } from './defineValue.js';
import type { Closure } from '../../core/frontend/closure.js';
import { ProgramCalls } from './ProgramCalls.js';
import type { PBinding, PObject } from './programBindings.js';
import { attributeNotSupportedHere, hostCodeInProgram, notCallableInExpression, programIndexesField } from '../../core/diagnostics/frontendErrors.js';
import { callbackInExpression } from '../../core/diagnostics/callbackErrors.js';
import { closureArgumentMissing, closureNoMethodToOrchestrate, objectCreatedInProgram, orchestratedMethodVariadic, programClassWithoutCall, programParamType, programParamUntyped, programVariadic } from '../../core/diagnostics/programErrors.js';
import { shapeIndexOutOfRange } from '../../core/diagnostics/stencilErrors.js';
import { defineUnknownName } from '../../core/diagnostics/usageErrors.js';
import { compiletimeArgumentMissing } from '../../core/diagnostics/externalErrors.js';

export type { PBinding, PObject, StencilResolver } from './programBindings.js';
export { stencilEntryProgram } from './stencilEntryProgram.js';

/**
 * `@program` function (or program class) -> `Program` IR. Nested program calls are inlined
 * so the whole call tree is one body; stencil calls become coarse `call` nodes.
 * Compile-time arguments are folded; runtime scalars stay variables.
 *
 * A program class is an `__init__` that only stores stencils, temporaries, constants and
 * other program-class instances on `self` (run at compile time, its arguments are
 * compile-time values), plus a `__call__` lowered like a program function.
 */
export class ProgramLowering extends ProgramCalls {
  lower(): Program {
    const compiletime: Record<string, number | boolean> = {};
    if (this.closure) return this.lowerClosure(this.closure, compiletime);
    const entry = this.entry;
    if (!entry) throw new Error('ProgramLowering: no entry and no closure');
    if (!('methods' in entry)) return this.lowerFunction(entry, null, compiletime, entry.def.nameLoc);
    const cls = entry;
    const call = cls.methods.get('__call__');
    if (!call) throw programClassWithoutCall(cls.name, cls.def.loc);
    const self = this.instantiate(cls, null, cls.def.loc, compiletime);
    return { ...this.lowerFunction(call, self, compiletime, cls.def.loc), name: cls.name };
  }

  /** An orchestrated method: `self` and the parameters bound from the closure. */
  protected lowerClosure(c: Closure, compiletime: Record<string, number | boolean>): Program {
    const params: Program['params'] = [];
    const binder = new ClosureBinder(this.loader, this.arrays, this.scalarVars, params, { file: c.file, line: 1, col: 1 });
    const cls = binder.classOf(c.file, c.class);
    const method = cls.methods.get(c.method);
    if (!method) throw closureNoMethodToOrchestrate(cls.name, c.method, cls.def.loc);
    const args = new Map<string, PBinding>();
    for (const p of method.def.params.slice(1)) {
      if (p.kind === 'varargs' || p.kind === 'kwargs') throw orchestratedMethodVariadic(p.loc);
      const n = c.args[p.name];
      if (!n) throw closureArgumentMissing(p.name, p.loc);
      args.set(p.name, binder.bind(n, null));
    }
    const self = binder.root(c);
    return { ...this.lowerFunction(method, self, compiletime, method.def.nameLoc, { args, params }), name: cls.name };
  }

  protected lowerFunction(
    fn: FunctionInfo,
    self: PObject | null,
    compiletime: Record<string, number | boolean>,
    loc: SourceLoc,
    bound: { args: Map<string, PBinding>; params: Program['params'] } | null = null,
  ): Program {
    const def = fn.def;
    this.scope = { vars: new Map(self ? [['self', self]] : []), fn, prefix: '' };
    const params: Program['params'] = bound ? bound.params : [];
    for (const p of def.params) {
      if (p.name === 'self') continue;
      const given = bound?.args.get(p.name);
      if (given) {
        this.scope.vars.set(p.name, given);
        continue;
      }
      if (p.kind === 'varargs' || p.kind === 'kwargs') throw programVariadic(p.loc);
      if (!p.annotation) throw programParamUntyped(p.name, p.loc);
      const t = this.loader.eval(p.annotation, fn.module);
      if (t.k === 'compiletime') {
        this.defineNames.add(p.name);
        let v: number | boolean | undefined = this.defines[p.name];
        if (v === undefined && p.default) {
          const d = this.loader.eval(p.default, fn.module);
          if (d.k === 'num' || d.k === 'bool') v = d.value;
        }
        if (v === undefined) {
          throw compiletimeArgumentMissing(p.name, p.loc);
        }
        const inner = t.inner;
        if (this.defines[p.name] !== undefined) checkDefine(p.name, v, inner.k === 'dtype' ? inner.dtype : undefined, fn.def.name, p.loc);
        const isIntType = inner.k === 'dtype' && isIntDType(inner.dtype);
        const value: Value = typeof v === 'boolean' ? { k: 'bool', value: v } : { k: 'num', value: v, isInt: isIntType || Number.isInteger(v) && !(inner.k === 'dtype' && inner.dtype.startsWith('float')) };
        compiletime[p.name] = v;
        this.scope.vars.set(p.name, { k: 'value', value });
      } else if (t.k === 'fieldType') {
        this.arrays.set(p.name, { name: p.name, dtype: t.dtype, axes: t.axes, ...(t.dims ? { dims: t.dims } : {}), role: 'arg', loc: p.loc });
        this.scope.vars.set(p.name, { k: 'array', name: p.name });
        params.push({ name: p.name, kind: 'field' });
      } else if (t.k === 'dtype') {
        this.scalarVars.set(p.name, { name: p.name, dtype: t.dtype, role: 'arg' });
        this.scope.vars.set(p.name, { k: 'scalar', name: p.name });
        params.push({ name: p.name, kind: 'scalar' });
      } else {
        throw programParamType(p.name, t.k === 'opaque' ? `: ${t.why}` : '', p.annotation.loc);
      }
    }
    const name = self ? self.cls.name : def.name;
    for (const k of Object.keys(this.defines)) {
      if (!this.defineNames.has(k)) {
        const guess = didYouMean(k, this.defineNames);
        throw defineUnknownName(k, name, loc, guess ? `did you mean '${guess}'?` : `compile-time arguments: ${[...this.defineNames].join(', ') || 'none'}`);
      }
    }
    const body = this.block(def.body);
    this.halos.check(body);
    return {
      name,
      entryKind: 'program',
      loc,
      params,
      arrays: [...this.arrays.values()],
      scalars: [...this.scalarVars.values()],
      compiletime,
      stencils: this.stencils,
      callbacks: [...this.callbacks.values()],
      body,
    };
  }

  // ---- expressions ----

  protected name(id: string, e: PyExpr): Term {
    const b = this.scope.vars.get(id);
    if (b) return this.bindingTerm(b, id, e);
    const v = this.loader.lookup(this.scope.fn.module, id);
    if (v === undefined && HOST_BUILTINS.has(id)) {
      throw hostCodeInProgram(id, e.loc, id.length);
    }
    if (v === undefined) throw nameNotDefined(id, e.loc, [...this.scope.vars.keys(), ...this.scope.fn.module.names.keys()], 'define or import it');
    if (v.k === 'opaque') throw notEvaluated(id, v.why, e.loc);
    return { c: v };
  }

  protected override attr(e: Extract<PyExpr, { t: 'attr' }>): Term {
    throw attributeNotSupportedHere(e.attr, e.loc);
  }

  protected subscript(e: Extract<PyExpr, { t: 'subscript' }>): Term {
    if (e.value.t === 'attr' && e.value.attr === 'shape' && e.index.length === 1) {
      const arr = this.arrayOf(e.value.value);
      const i = this.constant(e.index[0], 'a shape index');
      if (i.k !== 'num' || !i.isInt || i.value < -arr.axes.length || i.value >= arr.axes.length) throw shapeIndexOutOfRange(arr.axes, arr.axes.length - 1, e.index[0].loc);
      const axis = i.value < 0 ? arr.axes.length + i.value : i.value;
      return { r: { kind: 'shape', name: arr.name, axis, dtype: 'int64' } };
    }
    throw programIndexesField(e.loc);
  }

  protected userCall(callee: Value, e: Extract<PyExpr, { t: 'call' }>): Term {
    if (callee.k === 'class') {
      throw objectCreatedInProgram(callee.cls.name, callee.cls.isProgram, e.loc);
    }
    if (callee.k === 'function' && callee.fn.kind === 'callback') {
      throw callbackInExpression(callee.fn.name, e.loc);
    }
    const what = e.func.t === 'name' ? e.func.id : e.func.t === 'attr' ? e.func.attr : 'this';
    throw notCallableInExpression(describeValue(callee), what, e.func.loc, what.length);
  }
}

/** Python builtins that only make sense on the host (I/O, containers, introspection). */
const HOST_BUILTINS = new Set([
  'print', 'open', 'input', 'len', 'sum', 'list', 'dict', 'set', 'tuple', 'str', 'repr', 'format', 'isinstance', 'type',
  'getattr', 'setattr', 'hasattr', 'iter', 'next', 'enumerate', 'zip', 'map', 'filter', 'sorted', 'reversed', 'any', 'all',
  'exec', 'eval', 'id', 'hash', 'vars', 'dir', 'globals', 'locals', 'object', 'super', 'divmod', 'chr', 'ord',
]);
