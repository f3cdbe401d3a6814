import { isIntDType } from '../../core/ir/dtypes.js';
import { didYouMean, fail } from '../../core/diagnostics.js';
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
    if (!call) fail('E_CLASS_FORM', `program class '${cls.name}' has no __call__`, { loc: cls.def.loc, hint: 'define __call__(self, fields..., scalars...) with the program body' });
    const self = this.instantiate(cls, null, cls.def.loc, compiletime);
    return { ...this.lowerFunction(call, self, compiletime, cls.def.loc), name: cls.name };
  }

  /** An orchestrated method: `self` and the parameters bound from the closure. */
  protected lowerClosure(c: Closure, compiletime: Record<string, number | boolean>): Program {
    const params: Program['params'] = [];
    const binder = new ClosureBinder(this.loader, this.arrays, this.scalarVars, params, { file: c.file, line: 1, col: 1 });
    const cls = binder.classOf(c.file, c.class);
    const method = cls.methods.get(c.method);
    if (!method) fail('E_CLOSURE', `class '${cls.name}' has no method '${c.method}' to orchestrate`, { loc: cls.def.loc, hint: 'pass method_to_orchestrate= the name of a method defined in the class body' });
    const args = new Map<string, PBinding>();
    for (const p of method.def.params.slice(1)) {
      if (p.kind === 'varargs' || p.kind === 'kwargs') fail('E_PARAM', 'orchestrated methods cannot take *args/**kwargs', { loc: p.loc, hint: 'declare every argument by name' });
      const n = c.args[p.name];
      if (!n) fail('E_CLOSURE', `argument '${p.name}' is not described by the closure`, { loc: p.loc, hint: 'the closure file is written by the orch Python package' });
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
      if (p.kind === 'varargs' || p.kind === 'kwargs') fail('E_PARAM', 'programs cannot take *args/**kwargs', { loc: p.loc, hint: 'declare every argument by name' });
      if (!p.annotation) fail('E_PARAM_TYPE', `program argument '${p.name}' has no type annotation`, { loc: p.loc, hint: 'annotate fields (FloatField), scalars (Float, int, bool) and compile-time values (compiletime(int))' });
      const t = this.loader.eval(p.annotation, fn.module);
      if (t.k === 'compiletime') {
        this.defineNames.add(p.name);
        let v: number | boolean | undefined = this.defines[p.name];
        if (v === undefined && p.default) {
          const d = this.loader.eval(p.default, fn.module);
          if (d.k === 'num' || d.k === 'bool') v = d.value;
        }
        if (v === undefined) {
          fail('E_COMPILETIME_MISSING', `compile-time argument '${p.name}' has no value`, { loc: p.loc, hint: `pass --define ${p.name}=<value> or give it a default` });
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
        fail('E_PARAM_TYPE', `the annotation of '${p.name}' is not a field, scalar or compiletime(...) type${t.k === 'opaque' ? `: ${t.why}` : ''}`, { loc: p.annotation.loc, hint: 'use FloatField, Float, int, bool or compiletime(int)' });
      }
    }
    const name = self ? self.cls.name : def.name;
    for (const k of Object.keys(this.defines)) {
      if (!this.defineNames.has(k)) {
        const guess = didYouMean(k, this.defineNames);
        fail('E_USAGE_DEFINE_NAME', `--define ${k}: program '${name}' has no compile-time argument '${k}'`, { loc, hint: guess ? `did you mean '${guess}'?` : `compile-time arguments: ${[...this.defineNames].join(', ') || 'none'}` });
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
      fail('E_UNKNOWN_CALL', `'${id}' is Python host code, which orch cannot compile into a program`, {
        loc: e.loc,
        length: id.length,
        hint: 'move it into a @callback function (called with scalars, run by the host), or out of the program',
      });
    }
    if (v === undefined) throw nameNotDefined(id, e.loc, [...this.scope.vars.keys(), ...this.scope.fn.module.names.keys()], 'define or import it');
    if (v.k === 'opaque') throw notEvaluated(id, v.why, e.loc);
    return { c: v };
  }

  protected override attr(e: Extract<PyExpr, { t: 'attr' }>): Term {
    fail('E_UNSUPPORTED', `attribute '${e.attr}' is not supported here`, { loc: e.loc, hint: e.attr === 'shape' ? 'unpack it (nx, ny, nz = q.shape) or index it (q.shape[0])' : 'use module constants or field.shape' });
  }

  protected subscript(e: Extract<PyExpr, { t: 'subscript' }>): Term {
    if (e.value.t === 'attr' && e.value.attr === 'shape' && e.index.length === 1) {
      const arr = this.arrayOf(e.value.value);
      const i = this.constant(e.index[0], 'a shape index');
      if (i.k !== 'num' || !i.isInt || i.value < -arr.axes.length || i.value >= arr.axes.length) fail('E_SHAPE_INDEX', `shape index out of range for a ${arr.axes} field`, { loc: e.index[0].loc, hint: `use 0..${arr.axes.length - 1}` });
      const axis = i.value < 0 ? arr.axes.length + i.value : i.value;
      return { r: { kind: 'shape', name: arr.name, axis, dtype: 'int64' } };
    }
    fail('E_UNSUPPORTED', 'programs cannot index fields', { loc: e.loc, hint: 'read and write fields inside stencils' });
  }

  protected userCall(callee: Value, e: Extract<PyExpr, { t: 'call' }>): Term {
    if (callee.k === 'class') {
      fail('E_CLASS_INSTANCE', `'${callee.cls.name}' objects cannot be created in a program`, {
        loc: e.loc,
        hint: callee.cls.isProgram ? `create it in the __init__ of a program class (self.x = ${callee.cls.name}(...)) and call self.x(...)` : 'programs work on fields and scalars; move object code into a @callback',
      });
    }
    if (callee.k === 'function' && callee.fn.kind === 'callback') {
      fail('E_CALLBACK_CALL', `callback '${callee.fn.name}' is called inside an expression`, {
        loc: e.loc,
        hint: `assign its result to a name first (x = ${callee.fn.name}(...)), then use the name; callbacks run in statement order`,
      });
    }
    const what = e.func.t === 'name' ? e.func.id : e.func.t === 'attr' ? e.func.attr : 'this';
    fail('E_UNKNOWN_CALL', `cannot call ${describeValue(callee)} ('${what}') in an expression`, { loc: e.func.loc, length: what.length, hint: 'programs may use math functions in expressions; stencils and programs are called as statements' });
  }
}

/** Python builtins that only make sense on the host (I/O, containers, introspection). */
const HOST_BUILTINS = new Set([
  'print', 'open', 'input', 'len', 'sum', 'list', 'dict', 'set', 'tuple', 'str', 'repr', 'format', 'isinstance', 'type',
  'getattr', 'setattr', 'hasattr', 'iter', 'next', 'enumerate', 'zip', 'map', 'filter', 'sorted', 'reversed', 'any', 'all',
  'exec', 'eval', 'id', 'hash', 'vars', 'dir', 'globals', 'locals', 'object', 'super', 'divmod', 'chr', 'ord',
]);
