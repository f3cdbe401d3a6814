import { didYouMean, fail } from '../../core/diagnostics.js';
import type { ArrayDecl, CallbackDecl, DType, Expr, PStmt, Program, ScalarVar, SourceLoc, StencilDef } from '../../core/ir/types.js';
import type { PyExpr, PyStmt } from '../../core/python/ast.js';
import { lowerCallback } from './CallbackLowering.js';
import { HaloLowering, isHaloBuiltin } from './HaloLowering.js';
import { DEFAULT_HALO } from '../../core/layout/RankLayout.js';
import { axisOffsets, type LayoutContext } from '../../core/frontend/layoutExternals.js';
import { truthy } from '../../core/frontend/constEval.js';
import { ExprLowering, valueToExpr, type Term } from './ExprLowering.js';
import type { ModuleLoader } from '../../core/frontend/ModuleLoader.js';
import { cast } from './typeRules.js';
import { visitExpr } from '../../core/ir/visit.js';
import { describeValue, type ClassInfo, type FunctionInfo, type Value } from '../../core/frontend/values.js';
import { ClosureBinder } from './ClosureBinder.js';
import type { Closure } from '../../core/frontend/closure.js';

/** What a name (or `self.attr`) means in a program. */
export type PBinding =
  | { k: 'array'; name: string }
  | { k: 'scalar'; name: string }
  | { k: 'value'; value: Value }
  /**
   * An instance of a program class: what its __init__ stored on `self`; or, `closed`, an
   * orchestrated component whose members come from its resolved closure (keys `.name`,
   * `[key]`), called through its orchestrated method `call`.
   */
  | { k: 'object'; cls: ClassInfo; attrs: Map<string, PBinding>; call?: string; closed?: boolean }
  /** A method of an instance (inlined like a nested program, `self` bound). */
  | { k: 'method'; fn: FunctionInfo; self: PObject }
  /** A plain object, dict or list of a closure: the members the method reads. */
  | { k: 'record'; type: string; attrs: Map<string, PBinding> }
  /** A stencil object of a closure, with its own externals and a FrozenStencil's origin/domain. */
  | { k: 'stencil'; fn: FunctionInfo; externals: Record<string, Value>; origin: number[] | null; domain: number[] | null }
  /** A host callback of a closure (`path` names it for the host); `method`: bound to its object. */
  | { k: 'callback'; fn: FunctionInfo; path: string; method: boolean }
  /** A closure member orch cannot compile: an error where it is used. */
  | { k: 'unsupported'; type: string; why: string; hint: string };
export type PObject = Extract<PBinding, { k: 'object' }>;

interface PScope {
  vars: Map<string, PBinding>;
  fn: FunctionInfo;
  prefix: string;
}

/**
 * Resolves and caches lowered stencils for the programs that call them. `callExternals`
 * (region externals of a layout build, per call) rank below the stencil's own externals.
 */
export interface StencilResolver {
  (fn: FunctionInfo, loc: SourceLoc, callExternals?: Record<string, Value>, ownExternals?: Record<string, Value>): StencilDef;
}

/**
 * `@program` function (or program class) -> `Program` IR. Nested program calls are inlined
 * so the whole call tree is one body; stencil calls become coarse `call` nodes.
 * Compile-time arguments are folded; runtime scalars stay variables.
 *
 * A program class is an `__init__` that only stores stencils, temporaries, constants and
 * other program-class instances on `self` (run at compile time, its arguments are
 * compile-time values), plus a `__call__` lowered like a program function.
 */
export class ProgramLowering extends ExprLowering {
  protected override readonly context = 'a program';
  private readonly arrays = new Map<string, ArrayDecl>();
  private readonly scalarVars = new Map<string, ScalarVar>();
  private readonly stencils: Record<string, StencilDef> = {};
  private readonly stencilNames = new Map<StencilDef, string>();
  private readonly callbacks = new Map<FunctionInfo | string, CallbackDecl>();
  private scope!: PScope;
  private uid = 0;
  private depth = 0;

  /** Names of all defines a program may take (function or __call__ compiletime args, constructor args). */
  private readonly defineNames = new Set<string>();
  /** > 0 while lowering the body of a runtime if/while/for. */
  private runtimeFlow = 0;
  private readonly halos: HaloLowering;

  constructor(
    /** null for an orchestrated component: its closure names the class and method. */
    readonly entry: FunctionInfo | ClassInfo | null,
    readonly defines: Record<string, number | boolean>,
    readonly loader: ModuleLoader,
    readonly resolveStencil: StencilResolver,
    /** Set in a layout build: stencils get NDSL's region externals for their code path. */
    readonly layout: LayoutContext | null = null,
    /** An orchestrated component's resolved closure: `self` and the arguments come from it. */
    readonly closure: Closure | null = null,
  ) {
    super();
    this.halos = new HaloLowering({ arrayOf: (e) => this.arrayOf(e), constant: (e, what) => this.constant(e, what), halo: layout?.target.halo ?? DEFAULT_HALO });
  }

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
  private lowerClosure(c: Closure, compiletime: Record<string, number | boolean>): Program {
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

  private lowerFunction(
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
        const isIntType = inner.k === 'dtype' && (inner.dtype === 'int64' || inner.dtype === 'int32');
        const value: Value = typeof v === 'boolean' ? { k: 'bool', value: v } : { k: 'num', value: v, isInt: isIntType || Number.isInteger(v) && !(inner.k === 'dtype' && inner.dtype.startsWith('float')) };
        compiletime[p.name] = v;
        this.scope.vars.set(p.name, { k: 'value', value });
      } else if (t.k === 'fieldType') {
        this.arrays.set(p.name, { name: p.name, dtype: t.dtype, axes: t.axes, role: 'arg', loc: p.loc });
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
        fail('E_DEFINE_UNKNOWN', `--define ${k}: program '${name}' has no compile-time argument '${k}'`, { loc, hint: guess ? `did you mean '${guess}'?` : `compile-time arguments: ${[...this.defineNames].join(', ') || 'none'}` });
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

  private block(stmts: PyStmt[]): PStmt[] {
    return stmts.flatMap((s) => this.stmt(s));
  }

  /** The body of a runtime if/while/for: names bound there cannot alias fields. */
  private runtimeBlock(stmts: PyStmt[]): PStmt[] {
    this.runtimeFlow++;
    try {
      return this.block(stmts);
    } finally {
      this.runtimeFlow--;
    }
  }

  // ---- program classes ----

  /**
   * Runs a program class's `__init__` at compile time. The entry class takes its
   * arguments from the defines (or defaults); a nested instance (`self.sub = Sub(...)`)
   * from compile-time arguments at the call.
   */
  private instantiate(cls: ClassInfo, call: Extract<PyExpr, { t: 'call' }> | null, loc: SourceLoc, compiletime: Record<string, number | boolean>): PObject {
    const obj: PObject = { k: 'object', cls, attrs: new Map() };
    const init = cls.methods.get('__init__');
    if (!init) {
      if (call && (call.args.length || call.kwargs.length)) fail('E_CALL_ARGS', `${cls.name}() takes no arguments (it has no __init__)`, { loc: call.loc, hint: `write ${cls.name}()` });
      return obj;
    }
    const vars = new Map<string, PBinding>([['self', obj]]);
    const params = init.def.params.filter((p) => p.name !== 'self');
    params.forEach((p, i) => {
      if (p.kind === 'varargs' || p.kind === 'kwargs') fail('E_CLASS_INIT', `__init__ of program class '${cls.name}' cannot take *args/**kwargs`, { loc: p.loc, hint: 'declare every constructor argument by name' });
      if (!call) {
        // the entry class: constructor arguments are the build's compile-time values
        this.defineNames.add(p.name);
        const given = this.defines[p.name];
        if (given !== undefined) {
          compiletime[p.name] = given;
          vars.set(p.name, { k: 'value', value: typeof given === 'boolean' ? { k: 'bool', value: given } : { k: 'num', value: given, isInt: Number.isInteger(given) && !this.floatAnnotated(init, p.annotation) } });
          return;
        }
        if (!p.default) fail('E_COMPILETIME_MISSING', `constructor argument '${p.name}' of '${cls.name}' has no value`, { loc: p.loc, hint: `pass --define ${p.name}=<value> or give it a default` });
        vars.set(p.name, { k: 'value', value: this.loader.eval(p.default, init.module) });
        return;
      }
      const kw = call.kwargs.find((k) => k.name === p.name);
      const a = kw ? kw.value : call.args[i];
      if (!a) {
        if (!p.default) fail('E_ARG_MISSING', `${cls.name}() is missing argument '${p.name}'`, { loc: call.loc, hint: `pass ${p.name}=...` });
        vars.set(p.name, { k: 'value', value: this.loader.eval(p.default, init.module) });
        return;
      }
      vars.set(p.name, this.initValue(a, p.name));
    });
    const saved = this.scope;
    this.scope = { vars, fn: init, prefix: call ? `${cls.name}_${++this.uid}_` : '' };
    this.depth++;
    if (this.depth > 32) fail('E_RECURSION', `recursive construction of '${cls.name}'`, { loc, hint: 'program classes cannot contain themselves' });
    try {
      for (const st of init.def.body) this.initStmt(st, cls);
    } finally {
      this.depth--;
      this.scope = saved;
    }
    return obj;
  }

  private floatAnnotated(fn: FunctionInfo, annotation: PyExpr | null): boolean {
    if (!annotation) return false;
    const t = this.loader.eval(annotation, fn.module);
    return t.k === 'dtype' && t.dtype.startsWith('float');
  }

  private initStmt(s: PyStmt, cls: ClassInfo): void {
    const bad = (what: string, loc: SourceLoc) =>
      fail('E_CLASS_INIT', `${what} in the __init__ of program class '${cls.name}'`, {
        loc,
        hint: '__init__ may only store stencils, temporaries, constants and program-class instances on self (and compute compile-time values)',
      });
    switch (s.t) {
      case 'pass':
        return;
      case 'expr':
        if (s.value.t === 'str') return;
        return bad('an expression statement', s.loc);
      case 'assign': {
        if (s.targets.length !== 1) return bad('chained assignment', s.loc);
        const target = s.targets[0];
        if (target.t === 'attr') {
          const owner = this.resolve(target.value);
          if (owner?.k !== 'object') return bad('assignment to an attribute of something other than self', target.loc);
          owner.attrs.set(target.attr, this.initValue(s.value, target.attr));
          return;
        }
        if (target.t === 'name') {
          this.scope.vars.set(target.id, this.initValue(s.value, target.id));
          return;
        }
        return bad('this assignment', s.loc);
      }
      case 'if': {
        const t = this.term(s.test);
        const tv = 'c' in t ? truthy(t.c) : undefined;
        if (tv === undefined) return bad('a condition that is not known at compile time', s.test.loc);
        for (const st of tv ? s.body : s.orelse) this.initStmt(st, cls);
        return;
      }
      default:
        return bad(s.t === 'unsupported' ? s.what : `a ${s.t} statement`, s.loc);
    }
  }

  /** What `__init__` may store: a temporary, an instance, a field, or a compile-time value. */
  private initValue(e: PyExpr, nameHint: string): PBinding {
    if (e.t === 'call') {
      const f = this.term(e.func);
      if ('c' in f && f.c.k === 'builtin' && f.c.name === 'temporary') return { k: 'array', name: this.temporaryArray(e, nameHint) };
      if ('c' in f && f.c.k === 'class') return this.instantiate(f.c.cls, e, e.loc, {});
    }
    const b = e.t === 'name' || e.t === 'attr' ? this.resolve(e) : undefined;
    if (b && b.k !== 'value') return b;
    const t = this.term(e);
    if ('r' in t) {
      fail('E_CLASS_INIT', `'${nameHint}' depends on runtime values; __init__ runs at compile time`, {
        loc: e.loc,
        hint: 'store compile-time values (constructor arguments, constants) in __init__; compute runtime values in __call__',
      });
    }
    return { k: 'value', value: t.c };
  }

  /** A name or `a.b.c` attribute chain through program-class instances, if it is one. */
  private resolve(e: PyExpr): PBinding | undefined {
    if (e.t === 'name') return this.scope.vars.get(e.id);
    if (e.t === 'subscript') return this.resolveItem(e);
    if (e.t !== 'attr') return undefined;
    const base = this.resolve(e.value);
    if (base?.k === 'record') return this.closedMember(base.attrs, base.type, `.${e.attr}`, e);
    // a Quantity's array (`self.delp.data`) is the Quantity's
    if (base?.k === 'array' && e.attr === 'data' && this.closure) return base;
    if (base?.k !== 'object') return undefined;
    return this.member(base, e.attr, e);
  }

  /** `x[key]` of a closure record (a dict or list) or a compile-time tuple, with a constant key. */
  private resolveItem(e: Extract<PyExpr, { t: 'subscript' }>): PBinding | undefined {
    const base = this.resolve(e.value);
    if (!base || (base.k !== 'record' && !(base.k === 'object' && base.closed) && !(base.k === 'value' && base.value.k === 'tuple'))) return undefined;
    if (e.index.length !== 1) fail('E_UNSUPPORTED', 'only one index is supported here', { loc: e.loc, hint: 'index with one constant key' });
    const key = this.constant(e.index[0], 'an index into configuration');
    if (base.k === 'value' && base.value.k === 'tuple') {
      const items = base.value.items;
      const i = key.k === 'num' && key.isInt ? (key.value < 0 ? items.length + key.value : key.value) : -1;
      if (i < 0 || i >= items.length) fail('E_INDEX', `index out of range for a tuple of ${items.length}`, { loc: e.index[0].loc, hint: `use 0..${items.length - 1}` });
      return { k: 'value', value: items[i] };
    }
    if (key.k !== 'str' && !(key.k === 'num' && key.isInt)) fail('E_INDEX', 'configuration is indexed by a constant string or integer', { loc: e.index[0].loc, hint: 'index dicts with string literals and lists with integer literals' });
    const attrs = base.k === 'record' ? base.attrs : (base as PObject).attrs;
    return this.closedMember(attrs, base.k === 'record' ? base.type : (base as PObject).cls.name, `[${JSON.stringify(key.value)}]`, e);
  }

  /** A member of a closure object; the closure holds every member the method reads. */
  private closedMember(attrs: Map<string, PBinding>, type: string, key: string, e: PyExpr): PBinding {
    const b = attrs.get(key);
    if (!b) fail('E_CLOSURE', `'${type}' object member ${key} was not resolved`, { loc: e.loc, hint: 'this member is read in a way orch cannot follow: read it through a self.<attr> chain in the orchestrated method' });
    return b;
  }

  private member(obj: PObject, attr: string, e: PyExpr): PBinding {
    if (obj.closed) return this.closedMember(obj.attrs, obj.cls.name, `.${attr}`, e);
    const own = obj.attrs.get(attr);
    if (own) return own;
    const method = obj.cls.methods.get(attr);
    if (method) return { k: 'method', fn: method, self: obj };
    const constant = obj.cls.attrs.get(attr);
    if (constant) return { k: 'value', value: constant };
    const guess = didYouMean(attr, [...obj.attrs.keys(), ...obj.cls.methods.keys(), ...obj.cls.attrs.keys()]);
    fail('E_UNKNOWN_NAME', `'${obj.cls.name}' object has no attribute '${attr}'`, {
      loc: e.loc,
      hint: guess ? `did you mean '${guess}'?` : `store it on self in ${obj.cls.name}.__init__`,
    });
  }

  /** The term a binding gives where a value is expected. */
  private bindingTerm(b: PBinding, what: string, e: PyExpr): Term {
    switch (b.k) {
      case 'scalar':
        return { r: { kind: 'scalar', name: b.name, dtype: this.scalarVars.get(b.name)!.dtype } };
      case 'value':
        return { c: b.value };
      case 'array':
        fail('E_NOT_A_VALUE', `field '${what}' cannot be used as a value in a program`, { loc: e.loc, hint: 'fields are passed to stencils; read them inside a stencil' });
      // eslint-disable-next-line no-fallthrough
      case 'object':
        fail('E_NOT_A_VALUE', `'${what}' is a ${b.cls.name} object, not a value`, { loc: e.loc, hint: `call it (${what}(...)) or use its attributes` });
      // eslint-disable-next-line no-fallthrough
      case 'method':
        fail('E_NOT_A_VALUE', `method '${b.fn.name}' cannot be used as a value`, { loc: e.loc, hint: 'call it as a statement' });
      // eslint-disable-next-line no-fallthrough
      case 'record':
        fail('E_NOT_A_VALUE', `'${what}' is a ${b.type} object, not a value`, { loc: e.loc, hint: 'use its members (numbers, booleans, arrays)' });
      // eslint-disable-next-line no-fallthrough
      case 'stencil':
      case 'callback':
        fail('E_NOT_A_VALUE', `'${what}' is a ${b.k}, not a value`, { loc: e.loc, hint: 'call it as a statement' });
      // eslint-disable-next-line no-fallthrough
      case 'unsupported':
        return this.unsupported(b, what, e);
    }
  }

  /** The located error for a closure member orch cannot compile. */
  private unsupported(b: Extract<PBinding, { k: 'unsupported' }>, what: string, e: PyExpr): never {
    fail('E_CLOSURE_TYPE', `'${chainText(e)}' (Python type ${b.type}): ${b.why}`, { loc: e.loc, hint: b.hint });
  }

  override term(e: PyExpr): Term {
    if (e.t === 'attr' || e.t === 'subscript') {
      const b = this.resolve(e);
      if (b) return this.bindingTerm(b, e.t === 'attr' ? e.attr : chainText(e), e);
    }
    return super.term(e);
  }

  private stmt(s: PyStmt): PStmt[] {
    switch (s.t) {
      case 'pass':
        return [];
      case 'expr':
        if (s.value.t === 'str') return [];
        if (s.value.t === 'call') return this.callStmt(s.value);
        fail('E_PROGRAM_STMT', 'an expression statement has no effect', { loc: s.loc, hint: 'call a stencil, a program or a callback, or assign the value' });
      // eslint-disable-next-line no-fallthrough
      case 'assign':
        return this.assign(s);
      case 'augassign':
        return this.assignName(s.target, { t: 'binop', op: s.op, left: s.target, right: s.value, loc: s.loc }, s.loc);
      case 'for':
        return this.forStmt(s);
      case 'while': {
        const pre = this.materialize([s.body], s.loc);
        return [...pre, { kind: 'while', cond: cast(this.expr(s.test), 'bool'), body: this.runtimeBlock(s.body), loc: s.loc }];
      }
      case 'if': {
        const t = this.term(s.test);
        if ('c' in t) {
          const tv = truthy(t.c);
          if (tv === undefined) fail('E_NOT_CONSTANT', `condition is ${describeValue(t.c)}`, { loc: s.test.loc, hint: 'conditions must be booleans or numbers' });
          return this.block(tv ? s.body : s.orelse);
        }
        const pre = this.materialize([s.body, s.orelse], s.loc);
        return [...pre, { kind: 'if', cond: cast(t.r, 'bool'), then: this.runtimeBlock(s.body), else: this.runtimeBlock(s.orelse), loc: s.loc }];
      }
      case 'return':
        if (s.value) fail('E_PROGRAM_STMT', 'programs return nothing', { loc: s.loc, hint: 'write results into field arguments' });
        fail('E_UNSUPPORTED', 'an early return is not supported in a program', { loc: s.loc, hint: 'use if/else around the remaining statements' });
      // eslint-disable-next-line no-fallthrough
      case 'unsupported':
        fail('E_UNSUPPORTED', `${s.what} is not supported in a program`, { loc: s.loc, length: s.length, hint: 'programs may call stencils, programs and callbacks, and use scalar arithmetic, for/while/if; see docs/programs.md' });
      // eslint-disable-next-line no-fallthrough
      default:
        fail('E_UNSUPPORTED', `${/^[aeiou]/.test(s.t) ? 'an' : 'a'} ${s.t} statement is not supported in a program`, { loc: s.loc, hint: 'programs may call stencils, programs and callbacks, and use scalar arithmetic, for/while/if; see docs/programs.md' });
    }
  }

  /**
   * Names assigned inside runtime control flow are runtime variables from then on: a
   * compile-time value they hold now is materialized before the loop or branch.
   */
  private materialize(bodies: PyStmt[][], loc: SourceLoc): PStmt[] {
    const out: PStmt[] = [];
    const names = new Set<string>();
    const scan = (stmts: PyStmt[]) => {
      for (const s of stmts) {
        if (s.t === 'assign') for (const t of s.targets) collectNames(t, names);
        else if (s.t === 'augassign') collectNames(s.target, names);
        else if (s.t === 'if') {
          scan(s.body);
          scan(s.orelse);
        } else if (s.t === 'while' || s.t === 'for') scan(s.body);
      }
    };
    bodies.forEach(scan);
    for (const n of names) {
      const b = this.scope.vars.get(n);
      if (b && b.k === 'value' && (b.value.k === 'num' || b.value.k === 'bool')) {
        this.scope.vars.delete(n);
        const value = valueToExpr(b.value, loc);
        const name = this.declareScalar(n, value.dtype);
        out.push({ kind: 'set', name, value, loc });
      }
    }
    return out;
  }

  private forStmt(s: Extract<PyStmt, { t: 'for' }>): PStmt[] {
    if (s.target.t !== 'name') fail('E_UNSUPPORTED', 'the loop variable must be a single name', { loc: s.target.loc, hint: 'write for i in range(n):' });
    const it = s.iter;
    if (it.t === 'list' || it.t === 'tuple') {
      fail('E_RUNTIME_LIST', `a ${it.t} is built at run time here; orch compiles no containers`, { loc: it.loc, hint: 'call the stencil once per field (unroll the loop), or loop over range(...)' });
    }
    const rangeFn = it.t === 'call' ? this.term(it.func) : null;
    if (it.t !== 'call' || !rangeFn || !('c' in rangeFn) || rangeFn.c.k !== 'builtin' || rangeFn.c.name !== 'range') {
      fail('E_UNSUPPORTED', 'programs can only loop over range(...)', { loc: it.loc, hint: 'write for i in range(start, stop, step):' });
    }
    const args = it.args.map((a) => cast(this.expr(a), 'int64'));
    if (args.length < 1 || args.length > 3) fail('E_CALL_ARGS', 'range() takes 1 to 3 arguments', { loc: it.loc, hint: 'write range(stop), range(start, stop) or range(start, stop, step)' });
    const one: Expr = { kind: 'lit', value: 1, dtype: 'int64' };
    const zero: Expr = { kind: 'lit', value: 0, dtype: 'int64' };
    const [start, stop, step] = args.length === 1 ? [zero, args[0], one] : args.length === 2 ? [args[0], args[1], one] : [args[0], args[1], args[2]];
    if (step.kind === 'lit' && step.value === 0) fail('E_RANGE', 'range() step must not be zero', { loc: it.loc, hint: 'use a positive or negative step' });
    const pre = this.materialize([s.body], s.loc);
    this.scope.vars.delete(s.target.id);
    const v = this.declareScalar(s.target.id, 'int64');
    return [...pre, { kind: 'for', var: v, start, stop, step, body: this.runtimeBlock(s.body), loc: s.loc }];
  }

  private declareScalar(pyName: string, dtype: DType): string {
    const existing = this.scope.vars.get(pyName);
    if (existing && existing.k === 'scalar') {
      const sv = this.scalarVars.get(existing.name)!;
      if (sv.role === 'local' && dtype.startsWith('float') && !sv.dtype.startsWith('float')) sv.dtype = 'float64';
      return existing.name;
    }
    let real = this.scope.prefix + pyName;
    while (this.scalarVars.has(real) || this.arrays.has(real)) real = `${real}_${++this.uid}`;
    this.scalarVars.set(real, { name: real, dtype, role: 'local' });
    this.scope.vars.set(pyName, { k: 'scalar', name: real });
    return real;
  }

  private assign(s: Extract<PyStmt, { t: 'assign' }>): PStmt[] {
    if (s.targets.length !== 1) fail('E_UNSUPPORTED', 'chained assignment is not supported', { loc: s.loc, hint: 'assign each target separately' });
    const target = s.targets[0];
    const value = s.value;
    // tmp = temporary(q); n = some_callback(...)
    if (value.t === 'call') {
      const f = this.term(value.func);
      if ('c' in f && f.c.k === 'builtin' && f.c.name === 'temporary') return this.temporary(target, value);
      if ('c' in f && f.c.k === 'function' && f.c.fn.kind === 'callback') return [this.callbackCall(f.c.fn, value, target)];
    }
    // a name for a field or an instance (`tmp = self.tmp`): an alias, fixed at compile time
    if (target.t === 'name' && (value.t === 'name' || value.t === 'attr')) {
      const b = this.resolve(value);
      if (b && b.k !== 'value' && b.k !== 'scalar') {
        if (b.k === 'unsupported') this.unsupported(b, target.id, value);
        if (this.runtimeFlow) fail('E_ALIAS_IN_FLOW', `'${target.id}' would name a field only on some runtime paths`, { loc: s.loc, hint: 'bind field names outside runtime if/while/for, or call the stencil on each branch with the field it needs' });
        this.scope.vars.set(target.id, b);
        return [];
      }
    }
    if (target.t === 'tuple') {
      // nx, ny, nz = q.shape
      if (value.t === 'attr' && value.attr === 'shape') {
        const arr = this.arrayOf(value.value);
        if (target.elts.length !== arr.axes.length) fail('E_UNPACK', `'${arr.name}' has ${arr.axes.length} axes, ${target.elts.length} names given`, { loc: s.loc, hint: 'unpack one name per axis' });
        return target.elts.flatMap((t, i) => this.setScalar(t, { kind: 'shape', name: arr.name, axis: i, dtype: 'int64' }, s.loc));
      }
      if (value.t === 'tuple' && value.elts.length === target.elts.length) {
        const vals = value.elts.map((v) => this.term(v));
        return target.elts.flatMap((t, i) => this.bindTerm(t, vals[i], s.loc));
      }
      fail('E_UNPACK', 'only tuples and field.shape can be unpacked in a program', { loc: s.loc, hint: 'assign values one by one' });
    }
    return this.assignName(target, value, s.loc);
  }

  private assignName(target: PyExpr, value: PyExpr, loc: SourceLoc): PStmt[] {
    return this.bindTerm(target, this.term(value), loc);
  }

  private bindTerm(target: PyExpr, t: Term, loc: SourceLoc): PStmt[] {
    if (target.t !== 'name') fail('E_ASSIGN_TARGET', 'programs can only assign to names', { loc: target.loc, hint: 'fields are written by stencils; assign scalars to names' });
    const existing = this.scope.vars.get(target.id);
    if ('c' in t) {
      // compile-time values stay compile-time unless the name is already a runtime variable
      if (!existing || existing.k === 'value') {
        if (t.c.k === 'opaque') fail('E_UNKNOWN_NAME', t.c.why, { loc, hint: 'only numbers, booleans and fields can be assigned' });
        this.scope.vars.set(target.id, { k: 'value', value: t.c });
        return [];
      }
    }
    if (existing && existing.k === 'array') fail('E_ASSIGN_TARGET', `'${target.id}' is a field and cannot be reassigned`, { loc: target.loc, hint: 'use a new name for the scalar' });
    return this.setScalar(target, 'r' in t ? t.r : valueToExpr(t.c, loc), loc);
  }

  private setScalar(target: PyExpr, value: Expr, loc: SourceLoc): PStmt[] {
    return [{ kind: 'set', name: this.scalarTarget(target, value.dtype), value, loc }];
  }

  /** The program scalar an assignment to `target` writes (declared on first assignment). */
  private scalarTarget(target: PyExpr, dtype: DType): string {
    if (target.t !== 'name') fail('E_ASSIGN_TARGET', 'programs can only assign to names', { loc: target.loc, hint: 'assign scalars to names' });
    const existing = this.scope.vars.get(target.id);
    if (existing && existing.k === 'array') fail('E_ASSIGN_TARGET', `'${target.id}' is a field and cannot be reassigned`, { loc: target.loc, hint: 'use a new name for the scalar' });
    if (existing && existing.k === 'scalar' && this.scalarVars.get(existing.name)?.role === 'arg') {
      // arguments are passed by value: shadow with a local
      this.scope.vars.delete(target.id);
    }
    return this.declareScalar(target.id, dtype);
  }

  private temporary(target: PyExpr, call: Extract<PyExpr, { t: 'call' }>): PStmt[] {
    if (target.t !== 'name') fail('E_ASSIGN_TARGET', 'temporary(...) must be assigned to a name', { loc: target.loc, hint: 'write tmp = temporary(q)' });
    this.scope.vars.set(target.id, { k: 'array', name: this.temporaryArray(call, target.id) });
    return [];
  }

  /**
   * `temporary(q)` (shape, axes and dtype of field q) or `temporary(shape=(nx, ny, nz),
   * dtype=Float)` (IJK for 3 extents, IJ for 2, K for 1): a zero-filled program array.
   */
  private temporaryArray(call: Extract<PyExpr, { t: 'call' }>, nameHint: string): string {
    const usage = 'write temporary(q) for a field like q, or temporary(shape=(nx, ny, nz), dtype=Float)';
    const shapeKw = call.kwargs.find((k) => k.name === 'shape');
    for (const k of call.kwargs) if (k.name !== 'shape' && k.name !== 'dtype') fail('E_CALL_ARGS', `temporary() has no parameter '${k.name}'`, { loc: k.loc, hint: usage });
    let dtype: DType = 'float64';
    let axes: ArrayDecl['axes'];
    let shape: Expr[];
    if (call.args.length === 1 && !shapeKw) {
      const like = this.arrayOf(call.args[0]);
      dtype = like.dtype;
      axes = like.axes;
      shape = [...like.axes].map((_, i) => (like.shape ? like.shape[i] : { kind: 'shape', name: like.name, axis: i, dtype: 'int64' }));
    } else if (call.args.length === 0 && shapeKw) {
      shape = this.intTuple(shapeKw.value, 'shape');
      // temporaries are allocated when the program starts, before any local is assigned
      for (const [n, e] of shape.entries()) {
        visitExpr(e, (x) => {
          if (x.kind === 'scalar' && this.scalarVars.get(x.name)?.role !== 'arg') {
            fail('E_TEMPORARY_SHAPE', 'the shape of a temporary must be known when the program starts', {
              loc: shapeKw.value.t === 'tuple' ? shapeKw.value.elts[n].loc : shapeKw.value.loc,
              hint: 'use compile-time values, scalar arguments or field shapes (q.shape[0]), or temporary(q) for a field like q',
            });
          }
        });
      }
      const byRank: Record<number, ArrayDecl['axes']> = { 1: 'K', 2: 'IJ', 3: 'IJK' };
      if (!byRank[shape.length]) fail('E_CALL_ARGS', `a temporary has 1 to 3 extents, got ${shape.length}`, { loc: shapeKw.value.loc, hint: usage });
      axes = byRank[shape.length];
    } else {
      fail('E_CALL_ARGS', 'temporary() takes a field or shape=(...)', { loc: call.loc, hint: usage });
    }
    const dt = call.kwargs.find((k) => k.name === 'dtype');
    if (dt) {
      const v = this.constant(dt.value, 'the dtype');
      if (v.k !== 'dtype') fail('E_PARAM_TYPE', 'dtype must be a type such as Float or np.float64', { loc: dt.value.loc, hint: 'write dtype=Float' });
      dtype = v.dtype;
    }
    let real = this.scope.prefix + nameHint;
    while (this.arrays.has(real) || this.scalarVars.has(real)) real = `${real}_${++this.uid}`;
    this.arrays.set(real, { name: real, dtype, axes, role: 'temporary', shape, loc: call.loc });
    return real;
  }

  private arrayOf(e: PyExpr): ArrayDecl {
    const b = this.resolve(e);
    if (b && b.k === 'array') return this.arrays.get(b.name)!;
    if (e.t === 'name' && !b) this.name(e.id, e); // an undefined name is reported as such
    if (e.t === 'unsupported') this.term(e);
    fail('E_NOT_A_FIELD', 'expected a field', { loc: e.loc, hint: 'pass a field argument or a temporary' });
  }

  // ---- calls ----

  private callStmt(e: Extract<PyExpr, { t: 'call' }>): PStmt[] {
    const target = this.resolve(e.func);
    const what = chainText(e.func);
    if (target?.k === 'stencil') return [this.stencilCall(target.fn, e, target)];
    if (target?.k === 'callback') return [this.callbackCall(target.fn, e, null, target)];
    if (target?.k === 'unsupported') return this.unsupported(target, what, e.func);
    if (target?.k === 'record') fail('E_UNKNOWN_CALL', `'${what}' is a ${target.type} object, which orch cannot call`, { loc: e.func.loc, hint: 'orchestrate it (orchestrate(obj=self, ...) in its __init__) or mark the method @dace_inhibitor' });
    if (target?.k === 'object') {
      const call = target.cls.methods.get(target.call ?? '__call__');
      if (!call) fail('E_UNKNOWN_CALL', `'${target.cls.name}' objects are not callable (no __call__)`, { loc: e.func.loc, hint: `define ${target.cls.name}.__call__` });
      return this.inlineProgram(call, e, target);
    }
    if (target?.k === 'method') return this.inlineProgram(target.fn, e, target.self);
    const f = this.term(e.func);
    if ('c' in f && f.c.k === 'builtin' && isHaloBuiltin(f.c.name)) return [this.halos.lower(f.c.name, e)];
    if (!('c' in f) || f.c.k !== 'function') {
      const what = e.func.t === 'name' ? e.func.id : e.func.t === 'attr' ? e.func.attr : 'this';
      fail('E_UNKNOWN_CALL', `cannot call '${what}' in a program`, {
        loc: e.func.loc,
        length: what.length,
        hint: 'programs call stencils, other programs and @callback functions; mark host code with @callback',
      });
    }
    const fn = f.c.fn;
    if (fn.kind === 'program') return this.inlineProgram(fn, e);
    if (fn.kind === 'callback') return [this.callbackCall(fn, e, null)];
    if (fn.kind === 'stencil' || (fn.kind === 'plain' && fn.def.body.some((st) => st.t === 'with'))) return [this.stencilCall(fn, e)];
    if (fn.kind === 'plain') {
      fail('E_UNKNOWN_CALL', `'${fn.name}' is a plain Python function: orch cannot compile it into the program`, {
        loc: e.func.loc,
        length: fn.name.length,
        hint: `mark it @callback to run it on the host (scalar arguments), or @program / @stencil to compile it`,
      });
    }
    fail('E_UNKNOWN_CALL', `'${fn.name}' is a @gtscript.function; call it from a stencil`, { loc: e.loc, hint: 'programs call stencils, not helpers' });
  }

  /**
   * The callback's declaration, lowered once per program (names unique across modules);
   * a closure's callbacks once per object (`path`), a method's `self` bound by the host.
   */
  private callback(fn: FunctionInfo, bound: Extract<PBinding, { k: 'callback' }> | null = null): CallbackDecl {
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
  private callbackCall(fn: FunctionInfo, e: Extract<PyExpr, { t: 'call' }>, target: PyExpr | null, bound: Extract<PBinding, { k: 'callback' }> | null = null): PStmt {
    const decl = this.callback(fn, bound);
    const params = bound?.method ? fn.def.params.slice(1) : fn.def.params;
    if (e.args.length > params.length) fail('E_CALL_ARGS', `${fn.name}() takes ${params.length} arguments, got ${e.args.length}`, { loc: e.loc, hint: `parameters: ${params.map((p) => p.name).join(', ')}` });
    for (const kw of e.kwargs) {
      if (!kw.name || !params.some((p) => p.name === kw.name)) {
        const guess = didYouMean(kw.name ?? '', params.map((p) => p.name));
        fail('E_CALL_ARGS', `${fn.name}() has no parameter '${kw.name}'`, { loc: kw.loc, hint: guess ? `did you mean '${guess}'?` : `parameters: ${params.map((p) => p.name).join(', ')}` });
      }
    }
    const args = decl.params.map((p, i) => {
      const kw = e.kwargs.find((k) => k.name === p.name);
      const given = kw ? kw.value : e.args[i];
      if (given) return cast(this.expr(given, 'scalar argument'), p.dtype);
      const dflt = params[i].default;
      if (!dflt) fail('E_ARG_MISSING', `${fn.name}() is missing argument '${p.name}'`, { loc: e.loc, hint: `pass ${p.name}=...` });
      return cast(valueToExpr(this.loader.eval(dflt, fn.module), dflt.loc), p.dtype);
    });
    let result: string | null = null;
    if (target) {
      if (decl.result === null) {
        fail('E_CALLBACK_RESULT', `callback '${fn.name}' returns nothing, so its result cannot be assigned`, {
          loc: e.loc,
          hint: fn.def.returns ? 'call it as a statement' : `annotate its return type (def ${fn.name}(...) -> float:)`,
        });
      }
      result = this.scalarTarget(target, decl.result);
    }
    return { kind: 'callback', callback: decl.name, args, result, loc: e.loc };
  }

  private stencilName(def: StencilDef): string {
    const known = this.stencilNames.get(def);
    if (known) return known;
    let name = def.name;
    while (this.stencils[name]) name = `${def.name}_${++this.uid}`;
    this.stencilNames.set(def, name);
    this.stencils[name] = def;
    return name;
  }

  private stencilCall(fn: FunctionInfo, call: Extract<PyExpr, { t: 'call' }>, frozen: Extract<PBinding, { k: 'stencil' }> | null = null): PStmt {
    const e = frozen ? withFrozenBounds(call, frozen) : call;
    const layoutExternals = this.layout ? this.layoutExternals(e) : undefined;
    const def = this.resolveStencil(fn, e.loc, layoutExternals, frozen?.externals);
    const name = this.stencilName(def);
    const fieldArgs: Record<string, string> = {};
    const scalarArgs: Record<string, Expr> = {};
    let originArg: PyExpr | null = null;
    let domainArg: PyExpr | null = null;
    const given = new Map<string, PyExpr>();
    if (e.args.length > def.params.length) fail('E_CALL_ARGS', `${def.name}() takes ${def.params.length} arguments, got ${e.args.length}`, { loc: e.loc, hint: `parameters: ${def.params.join(', ')}` });
    e.args.forEach((a, i) => given.set(def.params[i], a));
    for (const kw of e.kwargs) {
      if (kw.name === 'origin') originArg = kw.value;
      else if (kw.name === 'domain') domainArg = kw.value;
      else if (kw.name === 'validate_args' || kw.name === 'exec_info') continue;
      else if (kw.name && def.params.includes(kw.name)) given.set(kw.name, kw.value);
      else {
        const guess = didYouMean(kw.name ?? '', [...def.params, 'origin', 'domain']);
        fail('E_CALL_ARGS', `${def.name}() has no parameter '${kw.name}'`, { loc: kw.loc, hint: guess ? `did you mean '${guess}'?` : `parameters: ${def.params.join(', ')}` });
      }
    }
    for (const p of def.params) {
      const a = given.get(p);
      if (!a) {
        fail('E_ARG_MISSING', `${def.name}() is missing argument '${p}'`, {
          loc: e.loc,
          hint: def.optional?.includes(p)
            ? `GT4Py lets a caller leave out a parameter with a default (an unused '= None' field, a defaulted scalar); orch does not yet: pass ${p}=... (for an unused field, any field of its rank)`
            : `pass ${p}=...`,
        });
      }
      const field = def.fields.find((f) => f.name === p);
      if (field) {
        const arr = this.arrayOf(a);
        if (arr.axes !== field.axes) fail('E_ARG_AXES', `'${arr.name}' is a ${arr.axes} field but ${def.name}() expects ${field.axes} for '${p}'`, { loc: a.loc, hint: 'pass a field with matching dimensions' });
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
      if (d.length !== 3) fail('E_DOMAIN', 'domain must have 3 entries (nx, ny, nz)', { loc: domainArg.loc, hint: 'write domain=(nx, ny, nz)' });
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
  private layoutExternals(e: Extract<PyExpr, { t: 'call' }>): Record<string, Value> {
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

  private intTuple(e: PyExpr, what: string): Expr[] {
    if (e.t !== 'tuple') fail('E_DOMAIN', `${what} must be a tuple`, { loc: e.loc, hint: `write ${what}=(i, j, k)` });
    return e.elts.map((x) => {
      const v = this.expr(x);
      if (v.dtype !== 'int64' && v.dtype !== 'int32') fail('E_DOMAIN', `${what} entries must be integers`, { loc: x.loc, hint: 'use integer expressions' });
      return cast(v, 'int64');
    });
  }

  private inlineProgram(fn: FunctionInfo, e: Extract<PyExpr, { t: 'call' }>, self: PObject | null = null): PStmt[] {
    if (this.depth > 32) fail('E_RECURSION', `recursive program call of '${fn.name}'`, { loc: e.loc, hint: 'programs cannot call themselves' });
    const params = fn.def.params.filter((p) => p.name !== 'self');
    const vars = new Map<string, PBinding>(self ? [['self', self]] : []);
    const out: PStmt[] = [];
    const prefix = `${fn.name}_${++this.uid}_`;
    params.forEach((p, i) => {
      const kw = e.kwargs.find((k) => k.name === p.name);
      const a = kw ? kw.value : i < e.args.length ? e.args[i] : p.default;
      if (!a) fail('E_ARG_MISSING', `${fn.name}() is missing argument '${p.name}'`, { loc: e.loc, hint: `pass ${p.name}=...` });
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
    if (v === undefined) {
      const guess = didYouMean(id, [...this.scope.vars.keys(), ...this.scope.fn.module.names.keys()]);
      fail('E_UNKNOWN_NAME', `name '${id}' is not defined`, { loc: e.loc, length: id.length, hint: guess ? `did you mean '${guess}'?` : 'define or import it' });
    }
    if (v.k === 'opaque') fail('E_UNKNOWN_NAME', `'${id}': ${v.why}`, { loc: e.loc, length: id.length, hint: 'only literals and simple arithmetic are evaluated at module level' });
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

/** Wraps a stencil as an entry: its fields and scalars, plus its domain and per-field origins as runtime arguments. */
export function stencilEntryProgram(def: StencilDef): Program {
  const arrays: ArrayDecl[] = def.fields.filter((f) => f.role === 'api').map((f) => ({ name: f.name, dtype: f.dtype, axes: f.axes, role: 'arg', loc: def.loc }));
  const scalars: ScalarVar[] = def.scalars.map((s) => ({ name: s.name, dtype: s.dtype, role: 'arg' }));
  const params: Program['params'] = def.params.map((p) => ({ name: p, kind: def.fields.some((f) => f.name === p) ? 'field' : 'scalar' }));
  const taken = new Set(def.params);
  const fresh = (n: string) => {
    let x = n;
    while (taken.has(x)) x = `_${x}`;
    taken.add(x);
    return x;
  };
  const domain = (['I', 'J', 'K'] as const).map((ax) => {
    const name = fresh(`domain_${ax}`);
    scalars.push({ name, dtype: 'int64', role: 'arg' });
    params.push({ name, kind: 'scalar' });
    return { kind: 'scalar', name, dtype: 'int64' } as Expr;
  });
  const origins: Record<string, Expr[]> = {};
  for (const a of arrays) {
    origins[a.name] = [...a.axes].map((ax) => {
      const name = fresh(`origin_${a.name}_${ax}`);
      scalars.push({ name, dtype: 'int64', role: 'arg' });
      params.push({ name, kind: 'scalar' });
      return { kind: 'scalar', name, dtype: 'int64' } as Expr;
    });
  }
  return {
    name: def.name,
    entryKind: 'stencil',
    loc: def.loc,
    params,
    arrays,
    scalars,
    compiletime: {},
    stencils: { [def.name]: def },
    callbacks: [],
    body: [
      {
        kind: 'call',
        stencil: def.name,
        fields: Object.fromEntries(arrays.map((a) => [a.name, a.name])),
        scalars: Object.fromEntries(def.scalars.map((s) => [s.name, { kind: 'scalar', name: s.name, dtype: s.dtype } as Expr])),
        origins,
        domain: [domain[0], domain[1], domain[2]],
        loc: def.loc,
      },
    ],
  };
}

/** `self.a["k"][0]` as written, for messages. */
function chainText(e: PyExpr): string {
  if (e.t === 'name') return e.id;
  if (e.t === 'attr') return `${chainText(e.value)}.${e.attr}`;
  if (e.t === 'subscript') return `${chainText(e.value)}[${e.index.map((i) => (i.t === 'str' ? JSON.stringify(i.value) : i.t === 'num' ? String(i.value) : '...')).join(', ')}]`;
  return '...';
}

/** A FrozenStencil's call: its fixed origin and domain as the call's keywords (a call may not give its own). */
function withFrozenBounds(e: Extract<PyExpr, { t: 'call' }>, frozen: Extract<PBinding, { k: 'stencil' }>): Extract<PyExpr, { t: 'call' }> {
  const kwargs = [...e.kwargs];
  const tuple = (xs: number[]): PyExpr => ({ t: 'tuple', elts: xs.map((v) => ({ t: 'num', value: v, isInt: true, loc: e.loc })), loc: e.loc });
  for (const [name, value] of [['origin', frozen.origin], ['domain', frozen.domain]] as const) {
    if (!value) continue;
    const given = kwargs.find((k) => k.name === name);
    if (given) fail('E_CALL_ARGS', `this stencil's ${name} is fixed where it was built (a FrozenStencil)`, { loc: given.loc, hint: `drop ${name}=, or build the stencil with another ${name}` });
    kwargs.push({ name, value: tuple(value), loc: e.loc });
  }
  return { ...e, kwargs };
}

/** Python builtins that only make sense on the host (I/O, containers, introspection). */
const HOST_BUILTINS = new Set([
  'print', 'open', 'input', 'len', 'sum', 'list', 'dict', 'set', 'tuple', 'str', 'repr', 'format', 'isinstance', 'type',
  'getattr', 'setattr', 'hasattr', 'iter', 'next', 'enumerate', 'zip', 'map', 'filter', 'sorted', 'reversed', 'any', 'all',
  'exec', 'eval', 'id', 'hash', 'vars', 'dir', 'globals', 'locals', 'object', 'super', 'divmod', 'chr', 'ord',
]);

function collectNames(t: PyExpr, out: Set<string>): void {
  if (t.t === 'name') out.add(t.id);
  else if (t.t === 'tuple') t.elts.forEach((x) => collectNames(x, out));
}
