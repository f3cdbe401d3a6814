import { isIntDType } from '../../core/ir/dtypes.js';
import { didYouMean, fail } from '../../core/diagnostics.js';
import { nameNotDefined, notEvaluated } from '../../core/diagnostics/codes.js';
import type { Expr, FieldDecl, IterationOrder, Offset, ScalarDecl, SourceLoc, Stmt } from '../../core/ir/types.js';
import { dottedName, type PyExpr, type PyStmt } from '../../core/python/ast.js';
import { ExprLowering, type Term } from './ExprLowering.js';
import { GT4PY_BODY_BUILTINS, GTSCRIPT_NAMES } from '../../core/frontend/knownModules.js';
import { LAYOUT_EXTERNALS } from '../../core/frontend/layoutExternals.js';
import type { ModuleLoader } from '../../core/frontend/ModuleLoader.js';
import { binary, cast } from './typeRules.js';
import { describeValue, type FunctionInfo, type ModuleScope, type Value } from '../../core/frontend/values.js';
import { absoluteKAtK, absoluteKBadSyntax, absoluteKNotCalled, absoluteKNotInteger, absoluteKOfOffsetAlias, absoluteKWithoutKAxis, dataIndexCountMismatch, dataIndexNotInteger, dataIndexNotIntegerValue, dataIndexOutOfBounds, dataIndicesAtRunTime, duplicateOffsetAxis, fieldNoDataIndex, fieldNoKOffset, fieldNoOffsetAxis, fieldOffsetOnMissingAxis, globalTableOffset, offsetAxisOrder, offsetCountMismatch, offsetMixesNamesAndPlain, offsetNotConstant, offsetNotInteger, temporaryDataIndexAtRunTime, variableKOffset } from '../../core/diagnostics/stencilErrors.js';
import { notGtscriptName, notIndexable, onlyFieldsIndexed, onlyFieldsIndexedWithData } from '../../core/diagnostics/frontendErrors.js';
import { externalNoValue } from '../../core/diagnostics/externalErrors.js';

/** What a name means inside a stencil or an inlined helper. */
export type Binding =
  | { k: 'field'; name: string; offset: Offset }
  | { k: 'expr'; expr: Expr }
  | { k: 'value'; value: Value };

export interface Scope {
  vars: Map<string, Binding>;
  module: ModuleScope;
  /** Set inside an inlined helper: local names get unique temporaries. */
  helper: string | null;
  /** Fields created by assignments in this scope (a helper may write only these). */
  owned: Set<string>;
}

/**
 * The state of a stencil lowering and what names mean in it: parameters, externals,
 * temporaries and helper locals bound to fields, expressions or values, and field reads
 * with their offsets. `StencilLowering` builds on it.
 */
export abstract class StencilBindings extends ExprLowering {
  protected readonly fields = new Map<string, FieldDecl>();
  protected readonly scalars = new Map<string, ScalarDecl>();
  protected readonly params: string[] = [];
  protected scope!: Scope;
  /** Statements produced while lowering the current statement (inlined helper bodies). */
  protected pre: Stmt[] = [];
  protected uid = 0;
  protected inlineDepth = 0;
  /** Set while lowering an `if`/`while` test. */
  protected condition: 'if' | 'while' | null = null;
  protected readonly readLocs = new WeakMap<Expr, SourceLoc>();
  /** The iteration order of the computation being lowered. */
  protected order: IterationOrder = 'PARALLEL';
  /** Lowering the body of a horizontal region (GT4Py refuses nested ones). */
  protected inRegion = false;

  constructor(
    readonly fn: FunctionInfo,
    readonly externals: Record<string, Value>,
    readonly loader: ModuleLoader,
  ) {
    super();
  }

  /**
   * `from __externals__ import X` binds an external, `from __gtscript__ import X` a gtscript
   * builtin (also spelled with the `gt4py.cartesian.` prefix, as GT4Py accepts).
   */
  protected importExternals(s: Extract<PyStmt, { t: 'importfrom' }>): void {
    for (const a of s.names) {
      if (placeholderModule(s.module) === '__gtscript__') {
        const builtin = GTSCRIPT_NAMES[a.name];
        if (!builtin) {
          const guess = didYouMean(a.name, Object.keys(GTSCRIPT_NAMES));
          throw notGtscriptName(a.name, guess, a.loc, a.name.length);
        }
        this.scope.vars.set(a.asname ?? a.name, { k: 'value', value: builtin });
        continue;
      }
      const v = this.externals[a.name];
      if (v === undefined) {
        const guess = didYouMean(a.name, Object.keys(this.externals));
        throw externalNoValue(a.name, guess, (LAYOUT_EXTERNALS as readonly string[]).includes(a.name), a.loc, a.name.length);
      }
      this.scope.vars.set(a.asname ?? a.name, { k: 'value', value: this.externalValue(a.name, v, a.loc) });
    }
  }

  /** An external as the stencil sees it: function references resolve through the import path. */
  protected externalValue(name: string, v: Value, loc: SourceLoc): Value {
    if (v.k !== 'functionRef') return v;
    return { k: 'function', fn: this.loader.resolveFunction(v.path, this.fn.module, loc, name) };
  }

  // ---- names and fields ----

  protected lookupVar(id: string): Binding | undefined {
    return this.scope.vars.get(id);
  }

  protected name(id: string, e: PyExpr): Term {
    const b = this.lookupVar(id);
    if (b) {
      if (b.k === 'field') {
        const f = this.fields.get(b.name)!;
        return { r: this.read({ kind: 'field', name: b.name, offset: [...b.offset] as Offset, dtype: f.dtype }, e) };
      }
      if (b.k === 'expr') return { r: b.expr };
      return { c: b.value };
    }
    const v = this.loader.lookup(this.scope.module, id) ?? (GT4PY_BODY_BUILTINS.has(id) ? GTSCRIPT_NAMES[id] : undefined);
    if (v === undefined) throw nameNotDefined(id, e.loc, [...this.scope.vars.keys(), ...this.scope.module.names.keys()], 'define it as a module constant, import it, or pass it as an external');
    if (v.k === 'opaque') throw notEvaluated(id, v.why, e.loc);
    return { c: v };
  }

  protected fieldRead(name: string, offset: Offset): Expr {
    return { kind: 'field', name, offset: [...offset] as Offset, dtype: this.fields.get(name)!.dtype };
  }

  /** Remembers where a field read was written, for diagnostics about it after lowering. */
  protected read(f: Expr, e: PyExpr): Expr {
    this.readLocs.set(f, e.loc);
    return f;
  }

  /**
   * The offsets of `f[...]`: constants, except along K, where GT4Py also takes an int
   * expression evaluated at the current point (`f[0, 0, lev + 1]`).
   */
  protected offsets(e: Extract<PyExpr, { t: 'subscript' }>, f: FieldDecl): { offset: Offset; kOffset?: Expr } {
    const axes = [...f.axes].map((a) => 'IJK'.indexOf(a));
    const terms = e.index.map((x) => this.term(x));
    if (terms.some((t) => 'c' in t && (t.c.k === 'axis' || t.c.k === 'axisOffset'))) return { offset: axisOffsets(e, f, terms) };
    if (!axes.length) {
      throw globalTableOffset(f.name, e.loc);
    }
    if (e.index.length !== axes.length) {
      // GT4Py's message: one offset per axis of the field, never three for a lower-dimensional one
      const found = e.index.map((x, n) => { const t = terms[n]; return 'c' in t && t.c.k === 'num' ? String(t.c.value) : '...'; });
      throw offsetCountMismatch(f.name, found.join(', '), [...f.axes].join(', '), [...f.axes].map(() => '0').join(', '), f.axes[f.axes.length - 1], e.loc);
    }
    const out: Offset = [0, 0, 0];
    let kOffset: Expr | undefined;
    e.index.forEach((x, n) => {
      const d = axes[n];
      const v = terms[n];
      if ('r' in v) {
        if (d !== 2) {
          throw offsetNotConstant('IJK'[d], f.name, x.loc);
        }
        if (!axes.includes(2)) throw fieldNoKOffset(f.name, f.axes, x.loc);
        if (!isIntDType(v.r.dtype)) {
          throw variableKOffset(v.r.dtype, x.loc);
        }
        kOffset = cast(v.r, 'int64');
        return;
      }
      if (v.c.k !== 'num' || !v.c.isInt) throw offsetNotInteger(describeValue(v.c), x.loc);
      if (!axes.includes(d) && v.c.value !== 0) {
        throw fieldOffsetOnMissingAxis(f.name, 'IJK'[d], f.axes, x.loc);
      }
      out[d] = v.c.value;
    });
    return { offset: out, kOffset };
  }

  /**
   * The data index of `v[0, 0, 0][1, 0]` or `v.A[1, 0]`: constants within the extents (GT4Py
   * checks them when it parses), or int expressions computed at the point.
   */
  protected dataIndex(name: string, f: FieldDecl, index: PyExpr[], loc: SourceLoc): Expr[] {
    const dims = f.dims ?? [];
    if (!dims.length) {
      throw fieldNoDataIndex(name, f.axes, f.dtype, loc, name.length);
    }
    if (index.length !== dims.length) {
      throw dataIndexCountMismatch(name, dims.length, dims.join(', '), index.length, loc, name.length);
    }
    return index.map((x, d) => {
      const t = this.term(x);
      if ('c' in t) {
        if (t.c.k !== 'num' || !t.c.isInt) throw dataIndexNotIntegerValue(describeValue(t.c), x.loc);
        if (t.c.value < 0 || t.c.value >= dims[d]) {
          throw dataIndexOutOfBounds(t.c.value, d, name, dims[d], dims[d] - 1, x.loc);
        }
        return { kind: 'lit', value: t.c.value, dtype: 'int64' } as Expr;
      }
      if (!isIntDType(t.r.dtype)) {
        throw dataIndexNotInteger(t.r.dtype, x.loc);
      }
      if (f.role === 'temp') {
        throw temporaryDataIndexAtRunTime(name, x.loc);
      }
      return cast(t.r, 'int64');
    });
  }

  /** orch computes at most one index of a read at run time (a data index, or a K offset). */
  protected oneComputedIndex(name: string, data: readonly Expr[], variableK: boolean, loc: SourceLoc): void {
    const computed = data.filter((d) => d.kind !== 'lit').length + (variableK ? 1 : 0);
    if (computed <= 1) return;
    throw dataIndicesAtRunTime(name, computed, loc, name.length);
  }

  protected subscript(e: Extract<PyExpr, { t: 'subscript' }>): Term {
    // v[0, 0, 0][1]: a data index after the offsets
    if (e.value.t === 'subscript' && e.value.value.t === 'name') {
      const inner = this.subscript(e.value);
      const r = 'r' in inner ? inner.r : null;
      if (r?.kind !== 'field' || r.data) throw onlyFieldsIndexedWithData(e.loc);
      const f = this.fields.get(r.name)!;
      const data = this.dataIndex(e.value.value.id, f, e.index, e.loc);
      this.oneComputedIndex(e.value.value.id, data, false, e.loc);
      const d = data.findIndex((x) => x.kind !== 'lit');
      if (r.kOffset && d >= 0) {
        // v[0, 0, lev][n]: one read per element along n at the variable level; an n outside the
        // extent takes the last branch, a checked read at n that reports it as every backend does
        const { kOffset: _variable, ...atLevel } = r;
        let chain: Expr = this.read({ ...atLevel, data, loc: e.loc }, e);
        for (let c = f.dims![d] - 1; c >= 0; c--) {
          const at = data.map((x, n) => (n === d ? ({ kind: 'lit', value: c, dtype: 'int64' } as Expr) : x));
          const cond = binary('==', structuredClone(data[d]), { kind: 'lit', value: c, dtype: 'int64' });
          chain = { kind: 'ternary', cond, then: this.read({ ...structuredClone(r), data: at }, e), else: chain, dtype: f.dtype };
        }
        return { r: chain };
      }
      return { r: this.read({ ...r, data, ...(d >= 0 ? { loc: e.loc } : {}) }, e) };
    }
    // v.A[1]: GT4Py's data index at the point itself (the only index a GlobalTable takes)
    if (e.value.t === 'attr' && e.value.attr === 'A' && e.value.value.t === 'name') {
      const b = this.lookupVar(e.value.value.id);
      if (b?.k === 'field') {
        const f = this.fields.get(b.name)!;
        const data = this.dataIndex(e.value.value.id, f, e.index, e.loc);
        this.oneComputedIndex(e.value.value.id, data, false, e.loc);
        return { r: this.read({ kind: 'field', name: b.name, offset: [...b.offset] as Offset, data, ...(data.some((d) => d.kind !== 'lit') ? { loc: e.loc } : {}), dtype: f.dtype }, e) };
      }
    }
    if (e.value.t !== 'name') throw onlyFieldsIndexed(e.loc);
    const b = this.lookupVar(e.value.id);
    if (!b || b.k !== 'field') {
      throw notIndexable(e.value.id, e.loc);
    }
    const f = this.fields.get(b.name)!;
    const { offset: off, kOffset } = this.offsets(e, f);
    const offset: Offset = [off[0] + b.offset[0], off[1] + b.offset[1], off[2] + b.offset[2]];
    return { r: this.read(kOffset ? { kind: 'field', name: b.name, offset, kOffset, loc: e.loc, dtype: f.dtype } : { kind: 'field', name: b.name, offset, dtype: f.dtype }, e) };
  }

  /** `K` read as a value: the level index of the current point (`K - 1` too, which otherwise is an offset). */
  protected override valueExpr(v: Value, loc: SourceLoc, what = 'value'): Expr {
    if ((v.k === 'axis' || v.k === 'axisOffset') && v.axis === 'K') {
      const k: Expr = { kind: 'kindex', dtype: 'int64' };
      const offset = v.k === 'axisOffset' ? v.offset : 0;
      return offset === 0 ? k : { kind: 'binary', op: offset > 0 ? '+' : '-', left: k, right: { kind: 'lit', value: Math.abs(offset), dtype: 'int64' }, dtype: 'int64' };
    }
    return super.valueExpr(v, loc, what);
  }

  protected override call(e: Extract<PyExpr, { t: 'call' }>): Term {
    if (e.func.t === 'attr' && e.func.attr === 'at' && e.func.value.t === 'name' && this.lookupVar(e.func.value.id)?.k === 'field') return { r: this.absoluteK(e, e.func.value.id) };
    return super.call(e);
  }

  /**
   * `field.at(K=level, ddim=[...])`: the field at absolute level `level` of the call's domain
   * (GT4Py's experimental absolute K index, as its debug backend runs it), read as a variable
   * K offset `level - K` from the current point, so every backend checks it against the array.
   */
  protected absoluteK(e: Extract<PyExpr, { t: 'call' }>, id: string): Expr {
    const syntax = (why: string, hint: string): never => fail(absoluteKBadSyntax(why, e.loc, hint));
    const form = `${id}.at(K=level) or ${id}.at(K=level, ddim=[...])`;
    if (e.args.length || e.kwargs.length < 1 || e.kwargs.length > 2) syntax('Must be of the form `.at(K=..., ddim=[...])` where the `ddim` argument is optional.', `write ${form}`);
    if (e.kwargs[0].name !== 'K') syntax('First argument must be `K`, e.g. `.at(K=...)`.', `write ${form}: only K takes an absolute index`);
    const ddim = e.kwargs[1];
    if (ddim && ddim.name !== 'ddim') syntax('Second argument (optional) must be `ddim`, e.g. `.at(K=..., ddim=[...])`.', `write ${form}`);
    if (ddim && ddim.value.t !== 'list') syntax('Second argument `ddim` (optional) must be a list of values, e.g. `.at(K=..., ddim=[...])`.', `write ${form}`);
    const levelNode = e.kwargs[0].value;
    const level = this.term(levelNode);
    if ('c' in level && level.c.k === 'axis') {
      throw absoluteKAtK(level.c.axis === 'K' ? 'Absolute K index: bad syntax, you cannot write `.at(K=K)` since `.at` denotes an absolute index' : `Absolute K index: bad syntax, you cannot use parallel axis in absolute, e.g. no \`.at(K=${level.c.axis})\``, id, levelNode.loc);
    }
    const levelExpr = this.toExpr(level, levelNode);
    if (!isIntDType(levelExpr.dtype)) {
      throw absoluteKNotInteger(levelExpr.dtype, id, levelNode.loc);
    }
    const b = this.lookupVar(id) as Extract<Binding, { k: 'field' }>;
    const f = this.fields.get(b.name)!;
    if (!f.axes.includes('K')) {
      throw absoluteKWithoutKAxis(id, f.axes || 'no axes', e.loc);
    }
    const data = ddim && ddim.value.t === 'list' ? this.dataIndex(id, f, ddim.value.elts, ddim.value.loc) : undefined;
    if (data) this.oneComputedIndex(id, data, true, e.loc);
    if (!data && f.dims?.length) this.dataIndex(id, f, [], e.loc);
    if (b.offset[0] !== 0 || b.offset[1] !== 0) {
      // a helper's argument bound to q[1, 0, 0]: GT4Py's absolute reads are centered in I and J
      throw absoluteKOfOffsetAlias(id, b.name, e.loc);
    }
    // the read at level - K from the current point, whatever K offset the binding carries
    const kOffset: Expr = { kind: 'binary', op: '-', left: cast(levelExpr, 'int64'), right: { kind: 'kindex', dtype: 'int64' }, dtype: 'int64' };
    return this.read({ kind: 'field', name: b.name, offset: [0, 0, 0], kOffset, ...(data ? { data } : {}), loc: e.loc, dtype: f.dtype }, e);
  }

  protected override attr(e: Extract<PyExpr, { t: 'attr' }>): Term {
    if (e.attr === 'A' && e.value.t === 'name') {
      // `v.A` is indexed next (`v.A[1]`, see subscript); unindexed it is the whole field
      const b = this.lookupVar(e.value.id);
      if (b?.k === 'field') return { r: this.read({ kind: 'field', name: b.name, offset: [...b.offset] as Offset, dtype: this.fields.get(b.name)!.dtype }, e) };
    }
    if (e.attr === 'at') {
      throw absoluteKNotCalled(dottedName(e) ?? 'field.at', e.loc);
    }
    return super.attr(e);
  }
}

/** The offset of `f[I + 1, K - 1]`: each index names an axis of the field, at most once. */
function axisOffsets(e: Extract<PyExpr, { t: 'subscript' }>, f: FieldDecl, terms: Term[]): Offset {
  const out: Offset = [0, 0, 0];
  const seen = new Set<string>();
  terms.forEach((t, n) => {
    const x = e.index[n];
    if (!('c' in t) || (t.c.k !== 'axis' && t.c.k !== 'axisOffset')) {
      throw offsetMixesNamesAndPlain(f.name, x.loc);
    }
    const axis = t.c.axis;
    if (!f.axes.includes(axis)) throw fieldNoOffsetAxis(f.name, f.axes, axis, [...f.axes].join(', '), x.loc);
    if (seen.has(axis)) throw duplicateOffsetAxis(axis, f.name, x.loc);
    const later = [...seen].find((a) => 'IJK'.indexOf(a) > 'IJK'.indexOf(axis));
    if (later) throw offsetAxisOrder(axis, later, f.name, x.loc);
    seen.add(axis);
    out['IJK'.indexOf(axis)] = t.c.k === 'axisOffset' ? t.c.offset : 0;
  });
  return out;
}

/** `__externals__` or `__gtscript__` when `module` names one of GT4Py's placeholder modules, bare or qualified. */
export function placeholderModule(module: string): '__externals__' | '__gtscript__' | null {
  const bare = module.startsWith('gt4py.cartesian.') ? module.slice('gt4py.cartesian.'.length) : module;
  return bare === '__externals__' || bare === '__gtscript__' ? bare : null;
}

