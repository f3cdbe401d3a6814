import { didYouMean, fail } from '../../core/diagnostics.js';
import { missingArgument } from '../../core/diagnostics/codes.js';
import type { ArrayDecl, CallbackDecl, DType, ScalarVar, SourceLoc, StencilDef } from '../../core/ir/types.js';
import { checkDefine } from './defineValue.js';
import type { PyExpr, PyStmt } from '../../core/python/ast.js';
import { HaloLowering } from './HaloLowering.js';
import { DEFAULT_HALO } from '../../core/layout/RankLayout.js';
import type { LayoutContext } from '../../core/frontend/layoutExternals.js';
import { truthy } from '../../core/frontend/constEval.js';
import { ExprLowering, type Term } from './ExprLowering.js';
import type { ModuleLoader } from '../../core/frontend/ModuleLoader.js';
import type { ClassInfo, FunctionInfo } from '../../core/frontend/values.js';
import type { Closure } from '../../core/frontend/closure.js';
import type { PBinding, PObject, PScope, StencilResolver } from './programBindings.js';
import { chainText } from './chainText.js';
import { callableNotValue, classTakesNoArguments, closureMemberUnresolved, closureValueType, fieldNotValue, indexNotConstant, initDependsOnRuntime, methodNotValue, objectNotValue, objectOfTypeNotValue, programClassInitVariadic, programClassMember, tupleIndexOutOfRange } from '../../core/diagnostics/programErrors.js';
import { objectNoAttribute, oneIndexOnly, recursiveConstruction } from '../../core/diagnostics/frontendErrors.js';
import { constructorArgumentMissing } from '../../core/diagnostics/externalErrors.js';

/** Program lowering, layer 1: its state, program-class instances and what names and `self.attr` chains resolve to. */
export abstract class ProgramScope extends ExprLowering {
  // Defined by the layers above; declared here for the calls this layer makes.
  protected abstract arrayOf(e: PyExpr): ArrayDecl;
  protected abstract temporaryArray(call: Extract<PyExpr, { t: 'call' }>, nameHint: string): string;

  protected override readonly context = 'a program';
  protected readonly arrays = new Map<string, ArrayDecl>();
  protected readonly scalarVars = new Map<string, ScalarVar>();
  protected readonly stencils: Record<string, StencilDef> = {};
  protected readonly stencilNames = new Map<StencilDef, string>();
  protected readonly callbacks = new Map<FunctionInfo | string, CallbackDecl>();
  protected scope!: PScope;
  protected uid = 0;
  protected depth = 0;

  /** Names of all defines a program may take (function or __call__ compiletime args, constructor args). */
  protected readonly defineNames = new Set<string>();
  /** > 0 while lowering the body of a runtime if/while/for. */
  protected runtimeFlow = 0;
  protected readonly halos: HaloLowering;

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

  // ---- program classes ----

  /**
   * Runs a program class's `__init__` at compile time. The entry class takes its
   * arguments from the defines (or defaults); a nested instance (`self.sub = Sub(...)`)
   * from compile-time arguments at the call.
   */
  protected instantiate(cls: ClassInfo, call: Extract<PyExpr, { t: 'call' }> | null, loc: SourceLoc, compiletime: Record<string, number | boolean>): PObject {
    const obj: PObject = { k: 'object', cls, attrs: new Map() };
    const init = cls.methods.get('__init__');
    if (!init) {
      if (call && (call.args.length || call.kwargs.length)) throw classTakesNoArguments(cls.name, call.loc);
      return obj;
    }
    const vars = new Map<string, PBinding>([['self', obj]]);
    const params = init.def.params.filter((p) => p.name !== 'self');
    params.forEach((p, i) => {
      if (p.kind === 'varargs' || p.kind === 'kwargs') throw programClassInitVariadic(cls.name, p.loc);
      if (!call) {
        // the entry class: constructor arguments are the build's compile-time values
        this.defineNames.add(p.name);
        const given = this.defines[p.name];
        if (given !== undefined) {
          checkDefine(p.name, given, this.annotatedDType(init, p.annotation), cls.name, p.loc);
          compiletime[p.name] = given;
          vars.set(p.name, { k: 'value', value: typeof given === 'boolean' ? { k: 'bool', value: given } : { k: 'num', value: given, isInt: Number.isInteger(given) && !this.floatAnnotated(init, p.annotation) } });
          return;
        }
        if (!p.default) throw constructorArgumentMissing(p.name, cls.name, p.loc);
        vars.set(p.name, { k: 'value', value: this.loader.eval(p.default, init.module) });
        return;
      }
      const kw = call.kwargs.find((k) => k.name === p.name);
      const a = kw ? kw.value : call.args[i];
      if (!a) {
        if (!p.default) throw missingArgument(cls.name, p.name, call.loc);
        vars.set(p.name, { k: 'value', value: this.loader.eval(p.default, init.module) });
        return;
      }
      vars.set(p.name, this.initValue(a, p.name));
    });
    const saved = this.scope;
    this.scope = { vars, fn: init, prefix: call ? `${cls.name}_${++this.uid}_` : '' };
    this.depth++;
    if (this.depth > 32) throw recursiveConstruction(cls.name, loc);
    try {
      for (const st of init.def.body) this.initStmt(st, cls);
    } finally {
      this.depth--;
      this.scope = saved;
    }
    return obj;
  }

  /** The dtype an annotation names (int, float, Float ...), if it names one. */
  protected annotatedDType(fn: FunctionInfo, annotation: PyExpr | null): DType | undefined {
    if (!annotation) return undefined;
    const t = this.loader.eval(annotation, fn.module);
    return t.k === 'dtype' ? t.dtype : undefined;
  }

  protected floatAnnotated(fn: FunctionInfo, annotation: PyExpr | null): boolean {
    if (!annotation) return false;
    const t = this.loader.eval(annotation, fn.module);
    return t.k === 'dtype' && t.dtype.startsWith('float');
  }

  protected initStmt(s: PyStmt, cls: ClassInfo): void {
    const bad = (what: string, loc: SourceLoc) => fail(programClassMember(what, cls.name, loc));
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
  protected initValue(e: PyExpr, nameHint: string): PBinding {
    if (e.t === 'call') {
      const f = this.term(e.func);
      if ('c' in f && f.c.k === 'builtin' && f.c.name === 'temporary') return { k: 'array', name: this.temporaryArray(e, nameHint) };
      if ('c' in f && f.c.k === 'class') return this.instantiate(f.c.cls, e, e.loc, {});
    }
    const b = e.t === 'name' || e.t === 'attr' ? this.resolve(e) : undefined;
    if (b && b.k !== 'value') return b;
    const t = this.term(e);
    if ('r' in t) {
      throw initDependsOnRuntime(nameHint, e.loc);
    }
    return { k: 'value', value: t.c };
  }

  /** A name or `a.b.c` attribute chain through program-class instances, if it is one. */
  protected resolve(e: PyExpr): PBinding | undefined {
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
  protected resolveItem(e: Extract<PyExpr, { t: 'subscript' }>): PBinding | undefined {
    const base = this.resolve(e.value);
    if (!base || (base.k !== 'record' && !(base.k === 'object' && base.closed) && !(base.k === 'value' && base.value.k === 'tuple'))) return undefined;
    if (e.index.length !== 1) throw oneIndexOnly(e.loc);
    const key = this.constant(e.index[0], 'an index into configuration');
    if (base.k === 'value' && base.value.k === 'tuple') {
      const items = base.value.items;
      const i = key.k === 'num' && key.isInt ? (key.value < 0 ? items.length + key.value : key.value) : -1;
      if (i < 0 || i >= items.length) throw tupleIndexOutOfRange(items.length, items.length - 1, e.index[0].loc);
      return { k: 'value', value: items[i] };
    }
    if (key.k !== 'str' && !(key.k === 'num' && key.isInt)) throw indexNotConstant(e.index[0].loc);
    const attrs = base.k === 'record' ? base.attrs : (base as PObject).attrs;
    return this.closedMember(attrs, base.k === 'record' ? base.type : (base as PObject).cls.name, `[${JSON.stringify(key.value)}]`, e);
  }

  /** A member of a closure object; the closure holds every member the method reads. */
  protected closedMember(attrs: Map<string, PBinding>, type: string, key: string, e: PyExpr): PBinding {
    const b = attrs.get(key);
    if (!b) throw closureMemberUnresolved(type, key, e.loc);
    return b;
  }

  protected member(obj: PObject, attr: string, e: PyExpr): PBinding {
    if (obj.closed) return this.closedMember(obj.attrs, obj.cls.name, `.${attr}`, e);
    const own = obj.attrs.get(attr);
    if (own) return own;
    const method = obj.cls.methods.get(attr);
    if (method) return { k: 'method', fn: method, self: obj };
    const constant = obj.cls.attrs.get(attr);
    if (constant) return { k: 'value', value: constant };
    const guess = didYouMean(attr, [...obj.attrs.keys(), ...obj.cls.methods.keys(), ...obj.cls.attrs.keys()]);
    throw objectNoAttribute(obj.cls.name, attr, guess, e.loc);
  }

  /** The term a binding gives where a value is expected. */
  protected bindingTerm(b: PBinding, what: string, e: PyExpr): Term {
    switch (b.k) {
      case 'scalar':
        return { r: { kind: 'scalar', name: b.name, dtype: this.scalarVars.get(b.name)!.dtype } };
      case 'value':
        return { c: b.value };
      case 'array':
        throw fieldNotValue(what, e.loc);
      // eslint-disable-next-line no-fallthrough
      case 'object':
        throw objectNotValue(what, b.cls.name, e.loc);
      // eslint-disable-next-line no-fallthrough
      case 'method':
        throw methodNotValue(b.fn.name, e.loc);
      // eslint-disable-next-line no-fallthrough
      case 'record':
        throw objectOfTypeNotValue(what, b.type, e.loc);
      // eslint-disable-next-line no-fallthrough
      case 'stencil':
      case 'callback':
        throw callableNotValue(what, b.k, e.loc);
      // eslint-disable-next-line no-fallthrough
      case 'unsupported':
        return this.unsupported(b, what, e);
    }
  }

  /** The located error for a closure member orch cannot compile. */
  protected unsupported(b: Extract<PBinding, { k: 'unsupported' }>, what: string, e: PyExpr): never {
    throw closureValueType(chainText(e), b.type, b.why, e.loc, b.hint);
  }

  override term(e: PyExpr): Term {
    if (e.t === 'attr' || e.t === 'subscript') {
      const b = this.resolve(e);
      if (b) return this.bindingTerm(b, e.t === 'attr' ? e.attr : chainText(e), e);
    }
    return super.term(e);
  }
}
