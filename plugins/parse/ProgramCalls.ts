import { isIntDType } from '../../core/ir/dtypes.js';
import { fail } from '../../core/diagnostics.js';
import { missingArgument, noSuchParameter, tooManyArguments } from '../../core/diagnostics/codes.js';
import type { CallbackDecl, Expr, PStmt, StencilDef } from '../../core/ir/types.js';
import type { PyExpr } from '../../core/python/ast.js';
import { lowerCallback } from './CallbackLowering.js';
import { isHaloBuiltin } from './HaloLowering.js';
import { axisOffsets } from '../../core/frontend/layoutExternals.js';
import { valueToExpr, type Term } from './ExprLowering.js';
import { cast } from './typeRules.js';
import type { FunctionInfo, Value } from '../../core/frontend/values.js';
import { ProgramStatements } from './ProgramStatements.js';
import type { PBinding, PObject } from './programBindings.js';
import { chainText } from './chainText.js';
import { closureHaloFieldUnknown, domainNotIntegers, domainNotThree, domainNotTuple, frozenStencilArgument } from '../../core/diagnostics/programErrors.js';
import { gtscriptFunctionInProgram, notCallableInProgram, objectNotCallable, objectWithoutCall, plainPythonFunction, recursiveProgramCall } from '../../core/diagnostics/frontendErrors.js';
import { argumentAxesMismatch, argumentDataDimsMismatch } from '../../core/diagnostics/runtimeErrors.js';
import { callbackResultUnused } from '../../core/diagnostics/callbackErrors.js';
import { haloUpdaterTakesNoArguments } from '../../core/diagnostics/haloErrors.js';

/** Program lowering, layer 3: stencil, callback and nested-program calls. */
export abstract class ProgramCalls extends ProgramStatements {
  // ---- calls ----

  protected callStmt(e: Extract<PyExpr, { t: 'call' }>): PStmt[] {
    if (e.func.t === 'attr' && (e.func.attr === 'update' || e.func.attr === 'start' || e.func.attr === 'wait')) {
      // an NDSL WrappedHaloUpdater the closure compiles: orch's exchange of its arrays
      const updater = this.resolve(e.func.value);
      if (updater?.k === 'record' && updater.halo) {
        if (e.args.length || e.kwargs.length) throw haloUpdaterTakesNoArguments(chainText(e.func), e.loc);
        const fields = updater.halo.fields.map((f) => this.arrays.get(f) ?? fail(closureHaloFieldUnknown(f, e.loc)));
        return [this.halos.lowerUpdater(e.func.attr, fields, updater.halo.width, e.loc)];
      }
    }
    const target = this.resolve(e.func);
    const what = chainText(e.func);
    if (target?.k === 'stencil') return [this.stencilCall(target.fn, e, target)];
    if (target?.k === 'callback') return [this.callbackCall(target.fn, e, null, target)];
    if (target?.k === 'unsupported') return this.unsupported(target, what, e.func);
    if (target?.k === 'record') throw objectNotCallable(what, target.type, e.func.loc);
    if (target?.k === 'object') {
      const call = target.cls.methods.get(target.call ?? '__call__');
      if (!call) throw objectWithoutCall(target.cls.name, e.func.loc);
      return this.inlineProgram(call, e, target);
    }
    if (target?.k === 'method') return this.inlineProgram(target.fn, e, target.self);
    const f = this.term(e.func);
    if ('c' in f && f.c.k === 'builtin' && isHaloBuiltin(f.c.name)) return [this.halos.lower(f.c.name, e)];
    if (!('c' in f) || f.c.k !== 'function') {
      const what = e.func.t === 'name' ? e.func.id : e.func.t === 'attr' ? e.func.attr : 'this';
      throw notCallableInProgram(what, e.func.loc, what.length);
    }
    const fn = f.c.fn;
    if (fn.kind === 'program') return this.inlineProgram(fn, e);
    if (fn.kind === 'callback') return [this.callbackCall(fn, e, null)];
    if (fn.kind === 'stencil' || (fn.kind === 'plain' && fn.def.body.some((st) => st.t === 'with'))) return [this.stencilCall(fn, e)];
    if (fn.kind === 'plain') {
      throw plainPythonFunction(fn.name, e.func.loc, fn.name.length);
    }
    throw gtscriptFunctionInProgram(fn.name, e.loc);
  }

  /**
   * The callback's declaration, lowered once per program (names unique across modules);
   * a closure's callbacks once per object (`path`), a method's `self` bound by the host.
   */
  protected callback(fn: FunctionInfo, bound: Extract<PBinding, { k: 'callback' }> | null = null): CallbackDecl {
    const key = bound ? bound.path : fn;
    let decl = this.callbacks.get(key);
    if (!decl) {
      let name = fn.name.replace(/^_+/, '') || 'callback';
      const taken = new Set([...this.callbacks.values()].map((d) => d.name));
      while (taken.has(name)) name = `${fn.name.replace(/^_+/, '')}_${++this.uid}`;
      decl = lowerCallback(fn, name, this.loader, bound?.method ?? false);
      if (bound) decl.function = { ...decl.function, path: bound.path };
      this.callbacks.set(key, decl);
    }
    return decl;
  }

  /** `cb(args)` or `x = cb(args)`: a host call in program order. */
  protected callbackCall(fn: FunctionInfo, e: Extract<PyExpr, { t: 'call' }>, target: PyExpr | null, bound: Extract<PBinding, { k: 'callback' }> | null = null): PStmt {
    const decl = this.callback(fn, bound);
    const params = bound?.method ? fn.def.params.slice(1) : fn.def.params;
    if (e.args.length > params.length) throw tooManyArguments(fn.name, params.length, e.args.length, e.loc, `parameters: ${params.map((p) => p.name).join(', ')}`);
    for (const kw of e.kwargs) {
      if (!kw.name || !params.some((p) => p.name === kw.name)) throw noSuchParameter(fn.name, kw, params.map((p) => p.name));
    }
    const args = decl.params.map((p, i) => {
      const kw = e.kwargs.find((k) => k.name === p.name);
      const given = kw ? kw.value : e.args[i];
      if (given) return cast(this.expr(given, 'scalar argument'), p.dtype);
      const dflt = params[i].default;
      if (!dflt) throw missingArgument(fn.name, p.name, e.loc);
      return cast(valueToExpr(this.loader.eval(dflt, fn.module), dflt.loc), p.dtype);
    });
    let result: string | null = null;
    if (target) {
      if (decl.result === null) {
        throw callbackResultUnused(fn.name, !!fn.def.returns, e.loc);
      }
      result = this.scalarTarget(target, decl.result);
    }
    return { kind: 'callback', callback: decl.name, args, result, loc: e.loc };
  }

  protected stencilName(def: StencilDef): string {
    const known = this.stencilNames.get(def);
    if (known) return known;
    let name = def.name;
    while (this.stencils[name]) name = `${def.name}_${++this.uid}`;
    this.stencilNames.set(def, name);
    this.stencils[name] = def;
    return name;
  }

  protected stencilCall(fn: FunctionInfo, call: Extract<PyExpr, { t: 'call' }>, frozen: Extract<PBinding, { k: 'stencil' }> | null = null): PStmt {
    const e = frozen ? withFrozenBounds(call, frozen) : call;
    const layoutExternals = this.layout ? this.layoutExternals(e) : undefined;
    const def = this.resolveStencil(fn, e.loc, layoutExternals, frozen?.externals);
    const name = this.stencilName(def);
    const fieldArgs: Record<string, string> = {};
    const scalarArgs: Record<string, Expr> = {};
    let originArg: PyExpr | null = null;
    let domainArg: PyExpr | null = null;
    const given = new Map<string, PyExpr>();
    if (e.args.length > def.params.length) throw tooManyArguments(def.name, def.params.length, e.args.length, e.loc, `parameters: ${def.params.join(', ')}`);
    e.args.forEach((a, i) => given.set(def.params[i], a));
    for (const kw of e.kwargs) {
      if (kw.name === 'origin') originArg = kw.value;
      else if (kw.name === 'domain') domainArg = kw.value;
      else if (kw.name === 'validate_args' || kw.name === 'exec_info') continue;
      else if (kw.name && def.params.includes(kw.name)) given.set(kw.name, kw.value);
      else throw noSuchParameter(def.name, kw, def.params, [...def.params, 'origin', 'domain']);
    }
    for (const p of def.params) {
      const a = given.get(p);
      if (!a) {
        throw missingArgument(
          def.name,
          p,
          e.loc,
          def.optional?.includes(p)
            ? `GT4Py lets a caller leave out a parameter with a default (an unused '= None' field, a defaulted scalar); orch does not yet: pass ${p}=... (for an unused field, any field of its rank)`
            : undefined,
        );
      }
      const field = def.fields.find((f) => f.name === p);
      if (field) {
        const arr = this.arrayOf(a);
        if (arr.axes !== field.axes) throw argumentAxesMismatch(arr.name, arr.axes, def.name, field.axes, p, a.loc);
        if (String(arr.dims ?? '') !== String(field.dims ?? '')) {
          const dims = (d?: number[]) => (d ? `data dimensions (${d.join(', ')})` : 'no data dimensions');
          throw argumentDataDimsMismatch(arr.name, dims(arr.dims), def.name, dims(field.dims), p, a.loc);
        }
        fieldArgs[p] = arr.name;
      } else {
        const sd = def.scalars.find((s) => s.name === p)!;
        scalarArgs[p] = cast(this.expr(a), sd.dtype);
      }
    }
    const zero: Expr = { kind: 'lit', value: 0, dtype: 'int64' };
    const origins: Record<string, Expr[]> = {};
    const originFor = (field: string): Expr[] => {
      const axes = def.fields.find((f) => f.name === field)!.axes;
      const pick = (full: Expr[]): Expr[] => (full.length === axes.length && axes.length !== 3 ? full : [...axes].map((ax) => full['IJK'.indexOf(ax)] ?? zero));
      if (!originArg) return [...axes].map(() => zero);
      if (originArg.t === 'dict') {
        const key = (k: PyExpr) => (k.t === 'str' ? k.value : '');
        let idx = originArg.keys.findIndex((k) => key(k) === field || key(k) === fieldArgs[field]);
        if (idx < 0) idx = originArg.keys.findIndex((k) => key(k) === '_all_');
        if (idx < 0) return [...axes].map(() => zero);
        return pick(this.intTuple(originArg.values[idx], 'origin'));
      }
      return pick(this.intTuple(originArg, 'origin'));
    };
    for (const f of def.fields) if (f.role === 'api') origins[f.name] = originFor(f.name);
    let domain: [Expr, Expr, Expr];
    if (domainArg) {
      const d = this.intTuple(domainArg, 'domain');
      if (d.length !== 3) throw domainNotThree(domainArg.loc);
      domain = [d[0], d[1], d[2]];
    } else {
      // GT4Py's default: the largest domain every IJK field fits, from its origin
      const dims: Expr[] = [0, 1, 2].map((ax) => {
        let acc: Expr | null = null;
        for (const f of def.fields) {
          if (f.role !== 'api' || !f.axes.includes('IJK'[ax])) continue;
          const pos = f.axes.indexOf('IJK'[ax]);
          const ext: Expr = { kind: 'binary', op: '-', left: { kind: 'shape', name: fieldArgs[f.name], axis: pos, dtype: 'int64' }, right: origins[f.name][pos], dtype: 'int64' };
          acc = acc ? { kind: 'call', fn: 'min', args: [acc, ext], dtype: 'int64' } : ext;
        }
        return acc ?? { kind: 'lit', value: 1, dtype: 'int64' };
      });
      domain = [dims[0], dims[1], dims[2]];
    }
    return { kind: 'call', stencil: name, fields: fieldArgs, scalars: scalarArgs, origins, domain, loc: e.loc };
  }

  /** NDSL's region externals for this call on this code path, from its compile-time origin and domain. */
  protected layoutExternals(e: Extract<PyExpr, { t: 'call' }>): Record<string, Value> {
    const known = (x: PyExpr | undefined): (number | null)[] => {
      let t = x;
      if (t?.t === 'dict') {
        const all = t.keys.findIndex((k) => k.t === 'str' && k.value === '_all_');
        t = all >= 0 ? t.values[all] : undefined;
      }
      if (t?.t !== 'tuple') return [null, null, null];
      return t.elts.map((v) => {
        const c = this.term(v);
        return 'c' in c && c.c.k === 'num' && c.c.isInt ? c.c.value : null;
      });
    };
    const origin = e.kwargs.find((k) => k.name === 'origin');
    const domain = e.kwargs.find((k) => k.name === 'domain');
    return axisOffsets(this.layout!, origin ? known(origin.value) : [0, 0, 0], known(domain?.value), e.loc);
  }

  protected intTuple(e: PyExpr, what: string): Expr[] {
    if (e.t !== 'tuple') throw domainNotTuple(what, e.loc);
    return e.elts.map((x) => {
      const v = this.expr(x);
      if (!isIntDType(v.dtype)) throw domainNotIntegers(what, x.loc);
      return cast(v, 'int64');
    });
  }

  protected inlineProgram(fn: FunctionInfo, e: Extract<PyExpr, { t: 'call' }>, self: PObject | null = null): PStmt[] {
    if (this.depth > 32) throw recursiveProgramCall(fn.name, e.loc);
    const params = fn.def.params.filter((p) => p.name !== 'self');
    const vars = new Map<string, PBinding>(self ? [['self', self]] : []);
    const out: PStmt[] = [];
    const prefix = `${fn.name}_${++this.uid}_`;
    params.forEach((p, i) => {
      const kw = e.kwargs.find((k) => k.name === p.name);
      const a = kw ? kw.value : i < e.args.length ? e.args[i] : p.default;
      if (!a) throw missingArgument(fn.name, p.name, e.loc);
      const bound = kw || i < e.args.length ? this.resolve(a) : undefined;
      if (bound && bound.k !== 'value' && bound.k !== 'scalar' && bound.k !== 'unsupported') {
        vars.set(p.name, bound);
        return;
      }
      const t: Term = kw || i < e.args.length ? this.term(a) : { c: this.loader.eval(a, fn.module) };
      if ('r' in t) {
        let real = prefix + p.name;
        while (this.scalarVars.has(real)) real = `${real}_${++this.uid}`;
        this.scalarVars.set(real, { name: real, dtype: t.r.dtype, role: 'local' });
        out.push({ kind: 'set', name: real, value: t.r, loc: a.loc });
        vars.set(p.name, { k: 'scalar', name: real });
      } else {
        vars.set(p.name, { k: 'value', value: t.c.k === 'compiletime' ? t.c.inner : t.c });
      }
    });
    const saved = this.scope;
    this.scope = { vars, fn, prefix };
    this.depth++;
    try {
      out.push(...this.block(fn.def.body));
    } finally {
      this.depth--;
      this.scope = saved;
    }
    return out;
  }
}

/** A FrozenStencil's call: its fixed origin and domain as the call's keywords (a call may not give its own). */
function withFrozenBounds(e: Extract<PyExpr, { t: 'call' }>, frozen: Extract<PBinding, { k: 'stencil' }>): Extract<PyExpr, { t: 'call' }> {
  const kwargs = [...e.kwargs];
  const tuple = (xs: number[]): PyExpr => ({ t: 'tuple', elts: xs.map((v) => ({ t: 'num', value: v, isInt: true, loc: e.loc })), loc: e.loc });
  for (const [name, value] of [['origin', frozen.origin], ['domain', frozen.domain]] as const) {
    if (!value) continue;
    const given = kwargs.find((k) => k.name === name);
    if (given) throw frozenStencilArgument(name, given.loc);
    kwargs.push({ name, value: tuple(value), loc: e.loc });
  }
  return { ...e, kwargs };
}
