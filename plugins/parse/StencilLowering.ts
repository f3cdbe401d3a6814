import { noSuchParameter, tooManyArguments } from '../../core/diagnostics/codes.js';
import type { Computation, Expr, StencilDef, Stmt } from '../../core/ir/types.js';
import { forEachStmt, stmtExprs } from '../../core/ir/visit.js';
import { checkDataIndexed, dataIndices, splitDataDimTemporaries } from './dataDims.js';
import { cast } from './typeRules.js';
import { dottedName, type PyExpr, type PyStmt } from '../../core/python/ast.js';
import { truthy } from '../../core/frontend/constEval.js';
import { valueToExpr, type Term } from './ExprLowering.js';
import { rejectBuiltin } from './unsupportedBuiltins.js';
import { binary } from './typeRules.js';
import { describeValue, type FunctionInfo, type Value } from '../../core/frontend/values.js';
import { placeholderModule, type Binding } from './StencilBindings.js';
import { StencilStatements } from './StencilStatements.js';
import { functionLevelDeclaration, helperDoesNot, helperReturnValue, helperReturnsTuple, notGtscriptFunction, returnLastStatement, statementOutsideComputation, stencilNoComputation, temporaryAlreadyDefined, temporaryAxesAtFunctionLevel } from '../../core/diagnostics/stencilErrors.js';
import { callInCondition, callMissingArgument, stencilParamType, stencilParamUntyped, stencilVariadic } from '../../core/diagnostics/programErrors.js';
import { callNotGtscriptFunction, initialValueNotConstant, notCallableFromStencil, notCallableInStencil, recursiveHelperCall } from '../../core/diagnostics/frontendErrors.js';

type DefStmt = Extract<PyStmt, { t: 'def' }>;

/**
 * gtscript stencil definition -> `StencilDef`. Externals and module constants are folded,
 * compile-time `if`s are eliminated, `@gtscript.function` helpers are inlined (their
 * arguments bound by value, their locals turned into temporaries), and every expression
 * gets an explicit dtype.
 */
export class StencilLowering extends StencilStatements {
  lower(): StencilDef {
    const def = this.fn.def;
    this.scope = { vars: new Map(), module: this.fn.module, helper: null, owned: new Set() };
    for (const p of def.params) {
      if (p.kind === 'varargs' || p.kind === 'kwargs') {
        throw stencilVariadic(p.kind, p.name, p.loc);
      }
      if (!p.annotation) {
        throw stencilParamUntyped(p.name, p.loc);
      }
      const t = this.loader.eval(p.annotation, this.fn.module);
      this.params.push(p.name);
      if (t.k === 'fieldType') {
        this.fields.set(p.name, { name: p.name, dtype: t.dtype, axes: t.axes, ...(t.dims ? { dims: t.dims } : {}), role: 'api' });
        this.scope.vars.set(p.name, { k: 'field', name: p.name, offset: [0, 0, 0] });
      } else if (t.k === 'dtype') {
        this.scalars.set(p.name, { name: p.name, dtype: t.dtype });
        this.scope.vars.set(p.name, { k: 'expr', expr: { kind: 'scalar', name: p.name, dtype: t.dtype } });
      } else {
        throw stencilParamType(p.name, t.k === 'opaque' ? `: ${t.why}` : '', p.annotation.loc);
      }
    }
    const computations: Computation[] = [];
    const inits: Stmt[] = [];
    for (const s of def.body) {
      if (s.t === 'expr' && s.value.t === 'str') continue;
      if (s.t === 'pass') continue;
      if (s.t === 'expr' && s.value.t === 'call') {
        const f = this.term(s.value.func);
        if ('c' in f && f.c.k === 'builtin' && f.c.name === 'compile_assert') {
          this.compileAssert(s.value);
          continue;
        }
      }
      if (s.t === 'importfrom' && placeholderModule(s.module)) {
        this.importExternals(s);
        continue;
      }
      if (s.t === 'with') {
        computations.push(this.computation(s));
        continue;
      }
      if (s.t === 'if') {
        // compile-time branches around whole computations
        const v = this.constant(s.test, 'a condition outside computation blocks');
        const branch = truthy(v) ? s.body : s.orelse;
        for (const b of branch) if (b.t === 'with') computations.push(this.computation(b));
        continue;
      }
      if (s.t === 'assign' && s.annotation) {
        inits.push(...this.functionLevelTemp(s, s.annotation));
        continue;
      }
      throw statementOutsideComputation(s.loc);
    }
    if (computations.length === 0) {
      throw stencilNoComputation(def.name, def.nameLoc);
    }
    // GT4Py initializes function-level temporaries in a PARALLEL computation before the others
    if (inits.length) computations.unshift({ order: 'PARALLEL', intervals: [{ start: { level: 'start', offset: 0 }, end: { level: 'end', offset: 0 }, body: inits, loc: inits[0].loc }], loc: inits[0].loc });
    for (const c of computations) {
      for (const iv of c.intervals) {
        forEachStmt(iv.body, (st) => {
          for (const e of stmtExprs(st)) checkDataIndexed(e, this.fields, (x) => this.readLocs.get(x), st.loc);
        });
      }
    }
    const optional = def.params.filter((p) => p.default).map((p) => p.name);
    return splitDataDimTemporaries({
      name: def.name,
      loc: def.nameLoc,
      params: this.params,
      ...(optional.length ? { optional } : {}),
      fields: [...this.fields.values()],
      scalars: [...this.scalars.values()],
      computations,
    });
  }

  /**
   * `tmp: Field[(dtype, (n, ...))] = 0` before the computations: GT4Py's function-level
   * temporary (IJK only, a constant initial value), the way it declares data dimensions.
   */
  private functionLevelTemp(s: Extract<PyStmt, { t: 'assign' }>, annotation: PyExpr): Stmt[] {
    const target = s.targets[0];
    const t = this.loader.eval(annotation, this.fn.module);
    if (s.targets.length !== 1 || target.t !== 'name' || t.k !== 'fieldType') {
      throw functionLevelDeclaration(s.loc);
    }
    if (t.axes !== 'IJK') {
      throw temporaryAxesAtFunctionLevel(target.id, t.axes || 'none', annotation.loc);
    }
    const v = this.term(s.value);
    if (!('c' in v) || (v.c.k !== 'num' && v.c.k !== 'bool')) {
      throw initialValueNotConstant(target.id, s.value.loc);
    }
    if (this.scope.vars.has(target.id)) throw temporaryAlreadyDefined(target.id, target.loc, target.id.length);
    this.fields.set(target.id, { name: target.id, dtype: t.dtype, axes: 'IJK', ...(t.dims ? { dims: t.dims } : {}), role: 'temp' });
    this.scope.vars.set(target.id, { k: 'field', name: target.id, offset: [0, 0, 0] });
    const value = cast(valueToExpr(v.c, s.value.loc), t.dtype);
    if (!t.dims) return [{ kind: 'assign', target: target.id, value, loc: s.loc }];
    return dataIndices(t.dims).map((data): Stmt => ({ kind: 'assign', target: target.id, value: structuredClone(value), loc: s.loc, data }));
  }

  protected userCall(callee: Value, e: Extract<PyExpr, { t: 'call' }>): Term {
    if (callee.k === 'function') {
      if (callee.fn.kind === 'stencil' || callee.fn.kind === 'program') {
        throw notCallableFromStencil(callee.fn.name, callee.fn.kind, e.loc);
      }
      if (callee.fn.kind === 'plain') {
        // GT4Py resolves every function a stencil names when the decorator runs and raises TypeError for undecorated ones
        const name = dottedName(e.func) ?? callee.fn.name;
        throw notGtscriptFunction(callee.fn.name, e.func.loc, name.length);
      }
      if (this.condition) {
        const name = dottedName(e.func) ?? callee.fn.name;
        const why = this.condition === 'if' ? 'GT4Py rejects it too' : 'GT4Py would inline it once, before the loop, not at every iteration';
        throw callInCondition(this.condition, name, why, e.loc, name.length);
      }
      const r = this.inline(callee.fn, e);
      if (Array.isArray(r)) throw helperReturnsTuple(callee.fn.name, r.length, e.loc);
      return { r };
    }
    if (callee.k === 'builtin') rejectBuiltin(callee.name, dottedName(e.func) ?? callee.name, e.loc);
    const what = e.func.t === 'name' ? e.func.id : e.func.t === 'attr' ? e.func.attr : 'this';
    throw notCallableInStencil(describeValue(callee), what, e.func.loc, what.length);
  }

  /** Inlines a helper call: statements go to `this.pre`, the result expression(s) are returned. */
  protected inline(fn: FunctionInfo, e: Extract<PyExpr, { t: 'call' }>): Expr | Expr[] {
    if (fn.kind !== 'gtfunction' && fn.kind !== 'plain') {
      throw callNotGtscriptFunction(fn.name, e.loc);
    }
    if (this.inlineDepth > 32) throw recursiveHelperCall(fn.name, e.loc);
    const def: DefStmt = fn.def;
    const params = def.params;
    const bound = new Map<string, Binding>();
    const helperName = `${fn.name}_${++this.uid}`;
    const argFor = (i: number, name: string): PyExpr | undefined => {
      const kw = e.kwargs.find((k) => k.name === name);
      if (kw) return kw.value;
      return i < e.args.length && params[i].kind === 'normal' ? e.args[i] : undefined;
    };
    if (e.args.length > params.filter((p) => p.kind === 'normal').length) {
      throw tooManyArguments(fn.name, params.length, e.args.length, e.loc, `see the definition of ${fn.name}`);
    }
    for (const kw of e.kwargs) {
      if (!params.some((p) => p.name === kw.name)) throw noSuchParameter(fn.name, kw, params.map((p) => p.name));
    }
    params.forEach((p, i) => {
      const a = argFor(i, p.name);
      if (a === undefined) {
        if (!p.default) throw callMissingArgument(fn.name, p.name, e.loc);
        const dv = this.loader.eval(p.default, fn.module);
        bound.set(p.name, { k: 'value', value: dv });
        return;
      }
      const t = this.term(a);
      if ('c' in t) bound.set(p.name, { k: 'value', value: t.c });
      // an element of a field with data dimensions is a value (its data index would be lost as a field binding)
      else if (t.r.kind === 'field' && !t.r.kOffset && !t.r.data) bound.set(p.name, { k: 'field', name: t.r.name, offset: t.r.offset });
      else if (!containsField(t.r)) bound.set(p.name, { k: 'expr', expr: t.r });
      else {
        // an expression over fields: evaluate it once into a temporary, as GT4Py does
        let real = `${helperName}_${p.name}`;
        while (this.fields.has(real)) real = `${real}_${++this.uid}`;
        this.fields.set(real, { name: real, dtype: t.r.dtype, axes: 'IJK', role: 'temp' });
        this.pre.push({ kind: 'assign', target: real, value: t.r, loc: a.loc });
        bound.set(p.name, { k: 'field', name: real, offset: [0, 0, 0] });
      }
    });
    // Arguments are passed by value: a parameter the helper assigns to (maybe only in a
    // branch) starts as a copy of its argument, so every path sees the right value.
    const owned = new Set<string>();
    const assigned = assignedNames(def.body);
    for (const p of params) {
      const b = bound.get(p.name);
      if (!assigned.has(p.name) || !b) continue;
      const value = b.k === 'field' ? this.fieldRead(b.name, b.offset) : b.k === 'expr' ? b.expr : b.value.k === 'num' || b.value.k === 'bool' ? valueToExpr(b.value, e.loc) : null;
      if (!value) continue;
      let real = `${helperName}_${p.name}`;
      while (this.fields.has(real)) real = `${real}_${++this.uid}`;
      this.fields.set(real, { name: real, dtype: value.dtype, axes: 'IJK', role: 'temp' });
      this.pre.push({ kind: 'assign', target: real, value, loc: e.loc });
      bound.set(p.name, { k: 'field', name: real, offset: [0, 0, 0] });
      owned.add(real);
    }
    const saved = this.scope;
    this.scope = { vars: bound, module: fn.module, helper: helperName, owned };
    this.inlineDepth++;
    let result: Expr | Expr[] | null = null;
    try {
      def.body.forEach((s, i) => {
        if (s.t === 'expr' && s.value.t === 'str') return;
        if (s.t === 'return') {
          if (i !== def.body.length - 1) throw returnLastStatement(s.loc);
          if (!s.value) throw helperReturnValue(s.loc);
          if (s.value.t === 'tuple') result = s.value.elts.map((x) => this.expr(x));
          else result = this.expr(s.value);
          return;
        }
        if (s.t === 'importfrom' && placeholderModule(s.module)) {
          this.importExternals(s);
          return;
        }
        const before = this.pre;
        this.pre = [];
        const stmts = this.stmt(s);
        before.push(...this.pre, ...stmts);
        this.pre = before;
      });
    } finally {
      this.inlineDepth--;
      this.scope = saved;
    }
    if (result === null) throw helperDoesNot(fn.name, def.nameLoc);
    return result;
  }

}

/** Names a function body assigns to, at any depth (plain, augmented and tuple targets). */
function assignedNames(body: readonly PyStmt[], out = new Set<string>()): Set<string> {
  const target = (t: PyExpr) => {
    if (t.t === 'name') out.add(t.id);
    else if (t.t === 'tuple') t.elts.forEach(target);
  };
  for (const s of body) {
    if (s.t === 'assign') s.targets.forEach(target);
    else if (s.t === 'augassign') target(s.target);
    else if (s.t === 'if') {
      assignedNames(s.body, out);
      assignedNames(s.orelse, out);
    } else if (s.t === 'while' || s.t === 'with' || s.t === 'for') assignedNames(s.body, out);
  }
  return out;
}

function containsField(e: Expr): boolean {
  switch (e.kind) {
    case 'field':
      return true;
    case 'lit':
    case 'scalar':
    case 'shape':
    case 'kindex':
      return false;
    case 'unary':
    case 'cast':
      return containsField(e.arg);
    case 'binary':
      return containsField(e.left) || containsField(e.right);
    case 'ternary':
      return containsField(e.cond) || containsField(e.then) || containsField(e.else);
    case 'call':
      return e.args.some(containsField);
  }
}

export { binary };