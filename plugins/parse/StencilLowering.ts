import { didYouMean, fail } from '../../core/diagnostics.js';
import { boundRank, intervalMinLevels, intervalsOverlap, intervalText } from '../../core/ir/intervals.js';
import type {
  Axes, AxisBound, Computation, DType, Expr, FieldDecl, HorizontalRegion, IntervalBlock, IterationOrder, Offset, RegionAxis,
  ScalarDecl, SourceLoc, StencilDef, Stmt,
} from '../../core/ir/types.js';
import { dottedName, pyChildren, type PyExpr, type PyStmt } from '../../core/python/ast.js';
import { truthy } from '../../core/frontend/constEval.js';
import { ExprLowering, unsupportedHint, valueToExpr, type Term } from './ExprLowering.js';
import { GTSCRIPT_NAMES } from '../../core/frontend/knownModules.js';
import { LAYOUT_EXTERNALS } from '../../core/frontend/layoutExternals.js';
import { checkParallelModel } from './parallelModel.js';
import { rejectBuiltin } from './unsupportedBuiltins.js';
import type { ModuleLoader } from '../../core/frontend/ModuleLoader.js';
import { binary, cast } from './typeRules.js';
import { describeValue, type FunctionInfo, type ModuleScope, type Value } from '../../core/frontend/values.js';

/** What a name means inside a stencil or an inlined helper. */
type Binding =
  | { k: 'field'; name: string; offset: Offset }
  | { k: 'expr'; expr: Expr }
  | { k: 'value'; value: Value };

interface Scope {
  vars: Map<string, Binding>;
  module: ModuleScope;
  /** Set inside an inlined helper: local names get unique temporaries. */
  helper: string | null;
  /** Fields created by assignments in this scope (a helper may write only these). */
  owned: Set<string>;
}

type DefStmt = Extract<PyStmt, { t: 'def' }>;

/**
 * gtscript stencil definition -> `StencilDef`. Externals and module constants are folded,
 * compile-time `if`s are eliminated, `@gtscript.function` helpers are inlined (their
 * arguments bound by value, their locals turned into temporaries), and every expression
 * gets an explicit dtype.
 */
export class StencilLowering extends ExprLowering {
  private readonly fields = new Map<string, FieldDecl>();
  private readonly scalars = new Map<string, ScalarDecl>();
  private readonly params: string[] = [];
  private scope!: Scope;
  /** Statements produced while lowering the current statement (inlined helper bodies). */
  private pre: Stmt[] = [];
  private uid = 0;
  private inlineDepth = 0;
  /** Set while lowering an `if`/`while` test. */
  private condition: 'if' | 'while' | null = null;
  private readonly readLocs = new WeakMap<Expr, SourceLoc>();
  /** The iteration order of the computation being lowered. */
  private order: IterationOrder = 'PARALLEL';

  constructor(
    readonly fn: FunctionInfo,
    readonly externals: Record<string, Value>,
    readonly loader: ModuleLoader,
  ) {
    super();
  }

  lower(): StencilDef {
    const def = this.fn.def;
    this.scope = { vars: new Map(), module: this.fn.module, helper: null, owned: new Set() };
    for (const p of def.params) {
      if (p.kind === 'varargs' || p.kind === 'kwargs') {
        fail('E_PARAM', `*${p.kind === 'kwargs' ? '*' : ''}${p.name} is not allowed in a stencil signature`, { loc: p.loc, hint: 'declare every field and scalar as a named parameter' });
      }
      if (!p.annotation) {
        fail('E_PARAM_TYPE', `parameter '${p.name}' has no type annotation`, { loc: p.loc, hint: 'annotate fields with gtscript.Field[...] (or FloatField) and scalars with float, int or bool' });
      }
      const t = this.loader.eval(p.annotation, this.fn.module);
      this.params.push(p.name);
      if (t.k === 'fieldType') {
        this.fields.set(p.name, { name: p.name, dtype: t.dtype, axes: t.axes, role: 'api' });
        this.scope.vars.set(p.name, { k: 'field', name: p.name, offset: [0, 0, 0] });
      } else if (t.k === 'dtype') {
        this.scalars.set(p.name, { name: p.name, dtype: t.dtype });
        this.scope.vars.set(p.name, { k: 'expr', expr: { kind: 'scalar', name: p.name, dtype: t.dtype } });
      } else {
        fail('E_PARAM_TYPE', `the annotation of '${p.name}' is not a field or scalar type${t.k === 'opaque' ? `: ${t.why}` : ''}`, {
          loc: p.annotation.loc,
          hint: 'use gtscript.Field[np.float64], Field[IJ, float], NDSL aliases (FloatField, FloatFieldIJ, ...) or float/int/bool',
        });
      }
    }
    const computations: Computation[] = [];
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
        fail('E_STENCIL_STMT', 'a temporary declared at function level, outside every computation', {
          loc: s.loc,
          hint: 'GT4Py takes such declarations (it uses them for temporaries with data dimensions, which orch does not support yet); declare the temporary where it is first assigned inside a computation (tmp: Field[IJ, float] = 0, tmp: float = 0), one temporary per component',
        });
      }
      fail('E_STENCIL_STMT', 'statements of a stencil must be inside a `with computation(...)` block', {
        loc: s.loc,
        hint: 'wrap the statement in `with computation(PARALLEL), interval(...):`',
      });
    }
    if (computations.length === 0) {
      fail('E_STENCIL_EMPTY', `stencil '${def.name}' has no computation`, { loc: def.nameLoc, hint: 'add a `with computation(PARALLEL), interval(...):` block' });
    }
    const optional = def.params.filter((p) => p.default).map((p) => p.name);
    return {
      name: def.name,
      loc: def.nameLoc,
      params: this.params,
      ...(optional.length ? { optional } : {}),
      fields: [...this.fields.values()],
      scalars: [...this.scalars.values()],
      computations,
    };
  }

  /**
   * `from __externals__ import X` binds an external, `from __gtscript__ import X` a gtscript
   * builtin (also spelled with the `gt4py.cartesian.` prefix, as GT4Py accepts).
   */
  private importExternals(s: Extract<PyStmt, { t: 'importfrom' }>): void {
    for (const a of s.names) {
      if (placeholderModule(s.module) === '__gtscript__') {
        const builtin = GTSCRIPT_NAMES[a.name];
        if (!builtin) {
          const guess = didYouMean(a.name, Object.keys(GTSCRIPT_NAMES));
          fail('E_UNKNOWN_NAME', `'${a.name}' is not a gtscript name`, { loc: a.loc, length: a.name.length, hint: guess ? `did you mean '${guess}'?` : 'import gtscript builtins such as computation, interval, PARALLEL, __INLINED' });
        }
        this.scope.vars.set(a.asname ?? a.name, { k: 'value', value: builtin });
        continue;
      }
      const v = this.externals[a.name];
      if (v === undefined) {
        const guess = didYouMean(a.name, Object.keys(this.externals));
        fail('E_EXTERNAL_MISSING', `external '${a.name}' has no value`, {
          loc: a.loc,
          length: a.name.length,
          hint: guess
            ? `did you mean '${guess}'? `
            : (LAYOUT_EXTERNALS as readonly string[]).includes(a.name)
              ? `'${a.name}' is a region external of a rank layout: build with --layout NXxNY --rank-domain NX,NY,NZ (orch computes it per code path), or pass it with --externals`
              : `pass it with --externals '{"${a.name}": ...}' or in the stencil's externals={...}`,
        });
      }
      this.scope.vars.set(a.asname ?? a.name, { k: 'value', value: this.externalValue(a.name, v, a.loc) });
    }
  }

  /** An external as the stencil sees it: function references resolve through the import path. */
  private externalValue(name: string, v: Value, loc: SourceLoc): Value {
    if (v.k !== 'functionRef') return v;
    return { k: 'function', fn: this.loader.resolveFunction(v.path, this.fn.module, loc, name) };
  }

  // ---- computations and intervals ----

  private withCall(e: PyExpr): { name: string; call: Extract<PyExpr, { t: 'call' }> } | null {
    if (e.t !== 'call') return null;
    const f = this.term(e.func);
    if ('c' in f && f.c.k === 'builtin') return { name: f.c.name, call: e };
    return null;
  }

  private computation(s: Extract<PyStmt, { t: 'with' }>): Computation {
    const first = this.withCall(s.items[0]);
    if (!first || first.name !== 'computation') {
      fail('E_STENCIL_STMT', 'expected `with computation(PARALLEL|FORWARD|BACKWARD)`', { loc: s.items[0].loc, hint: 'stencil bodies are made of `with computation(...), interval(...):` blocks' });
    }
    if (first.call.args.length !== 1) fail('E_CALL_ARGS', 'computation() takes one iteration order', { loc: first.call.loc, hint: 'write computation(PARALLEL), computation(FORWARD) or computation(BACKWARD)' });
    const order = this.constant(first.call.args[0], 'the iteration order');
    if (order.k !== 'order') fail('E_ORDER', 'the iteration order must be PARALLEL, FORWARD or BACKWARD', { loc: first.call.args[0].loc, hint: 'import PARALLEL, FORWARD, BACKWARD from gt4py.cartesian.gtscript' });
    const intervals: IntervalBlock[] = [];
    if (s.items.length === 2) {
      intervals.push(this.intervalBlock(s.items[1], s.body, order.order));
    } else if (s.items.length === 3 && this.withCall(s.items[2])?.name === 'horizontal') {
      // `with computation(...), interval(...), horizontal(...):` is the three blocks nested
      intervals.push(this.intervalBlock(s.items[1], [{ t: 'with', items: [s.items[2]], body: s.body, loc: s.items[2].loc }], order.order));
    } else if (s.items.length === 1) {
      for (const b of s.body) {
        if (b.t === 'expr' && b.value.t === 'str') continue;
        if (b.t !== 'with' || b.items.length !== 1) {
          fail('E_STENCIL_STMT', 'inside `with computation(...)` without an interval, every statement must be a `with interval(...)` block', { loc: b.loc, hint: 'write `with computation(...), interval(...):` or nest `with interval(...):` blocks' });
        }
        const iv = this.intervalBlock(b.items[0], b.body, order.order);
        checkIntervalSequence(intervals, iv, order.order);
        intervals.push(iv);
      }
    } else {
      fail('E_STENCIL_STMT', 'a computation block takes computation(...), at most one interval(...) and then at most one horizontal(...)', { loc: s.loc, hint: 'nest further intervals as `with interval(...):` blocks' });
    }
    return { order: order.order, intervals, loc: s.loc };
  }

  private intervalBlock(item: PyExpr, body: PyStmt[], order: IterationOrder): IntervalBlock {
    const iv = this.withCall(item);
    if (!iv || iv.name !== 'interval') fail('E_STENCIL_STMT', 'expected interval(...)', { loc: item.loc, hint: 'write interval(...), interval(0, 1), interval(1, None), interval(0, -1) ...' });
    const args = iv.call.args;
    let start: AxisBound = { level: 'start', offset: 0 };
    let end: AxisBound = { level: 'end', offset: 0 };
    if (args.length === 1) {
      const v = this.constant(args[0], 'the interval');
      if (!(v.k === 'builtin' && v.name === '...')) fail('E_INTERVAL', 'interval takes (...) or (start, end)', { loc: iv.call.loc, hint: 'write interval(...) or interval(start, end)' });
    } else if (args.length === 2) {
      start = this.levelBound(args[0], true);
      end = this.levelBound(args[1], false);
    } else {
      fail('E_INTERVAL', 'interval takes (...) or (start, end)', { loc: iv.call.loc, hint: 'write interval(...) or interval(start, end)' });
    }
    if (intervalMinLevels(start, end) === null) {
      fail('E_INTERVAL', `${intervalText(start, end)} is empty for every domain`, {
        loc: iv.call.loc,
        length: 'interval'.length,
        hint: 'the start must lie below the end: positive bounds count from the bottom level, negative ones from the top (interval(1, -1) skips both)',
      });
    }
    const saved = this.pre;
    this.pre = [];
    this.order = order;
    const stmts = this.block(body);
    this.pre = saved;
    checkParallelModel(stmts, order, this.fields, (x) => this.readLocs.get(x));
    return { start, end, body: stmts, loc: iv.call.loc };
  }

  private levelBound(e: PyExpr, isStart: boolean): AxisBound {
    const v = this.constant(e, 'an interval bound');
    if (v.k === 'none') return isStart ? { level: 'start', offset: 0 } : { level: 'end', offset: 0 };
    if (v.k === 'num' && v.isInt) {
      if (v.value < 0) return { level: 'end', offset: v.value };
      if (v.value === 0 && !isStart) return { level: 'start', offset: 0 };
      return { level: 'start', offset: v.value };
    }
    if (v.k === 'axisIndex' && v.axis === 'K') return v.index >= 0 ? { level: 'start', offset: v.index + v.offset } : { level: 'end', offset: v.index + v.offset };
    fail('E_INTERVAL', `interval bound must be an integer or None, got ${describeValue(v)}`, { loc: e.loc, hint: 'use integers: interval(0, 1), interval(1, None), interval(0, -1)' });
  }

  // ---- statements ----

  private block(stmts: PyStmt[]): Stmt[] {
    const out: Stmt[] = [];
    const saved = this.pre;
    for (const s of stmts) {
      this.pre = [];
      const lowered = this.stmt(s);
      out.push(...this.pre, ...lowered);
    }
    this.pre = saved;
    return out;
  }

  private stmt(s: PyStmt): Stmt[] {
    switch (s.t) {
      case 'pass':
        return [];
      case 'expr':
        if (s.value.t === 'str') return [];
        if (s.value.t === 'call') {
          const f = this.term(s.value.func);
          if ('c' in f && f.c.k === 'builtin' && f.c.name === 'compile_assert') {
            this.compileAssert(s.value);
            return [];
          }
        }
        fail('E_STENCIL_STMT', 'an expression statement has no effect in a stencil', { loc: s.loc, hint: 'assign the value to a field or temporary' });
      // eslint-disable-next-line no-fallthrough
      case 'importfrom':
        if (placeholderModule(s.module)) {
          this.importExternals(s);
          return [];
        }
        break;
      case 'assign':
        return this.assign(s);
      case 'augassign': {
        const op = s.op;
        return this.assignTo(s.target, { t: 'binop', op, left: s.target, right: s.value, loc: s.loc }, s.loc);
      }
      case 'if':
        return this.ifStmt(s);
      case 'while': {
        const cond = cast(this.conditionExpr(s.test, 'while'), 'bool');
        return [{ kind: 'while', cond, body: this.block(s.body), loc: s.loc }];
      }
      case 'with':
        return this.horizontal(s);
      case 'return':
        fail('E_RETURN', 'return is only allowed at the end of a @gtscript.function', { loc: s.loc, hint: 'stencils write their results into fields' });
      // eslint-disable-next-line no-fallthrough
      case 'for':
        fail('E_UNSUPPORTED', 'for loops are not supported inside stencils', { loc: s.loc, hint: 'use a computation(FORWARD/BACKWARD) over K, or a while loop' });
      // eslint-disable-next-line no-fallthrough
      case 'try':
        fail('E_UNSUPPORTED', 'try/except is not supported in gtscript', { loc: s.loc, length: s.length, hint: unsupportedHint('try/except') });
      // eslint-disable-next-line no-fallthrough
      case 'unsupported':
        fail('E_UNSUPPORTED', `${s.what} is not supported in gtscript`, { loc: s.loc, length: s.length, hint: 'see docs/language.md for the statements stencils may contain' });
      // eslint-disable-next-line no-fallthrough
      default:
        break;
    }
    fail('E_UNSUPPORTED', `this ${s.t} statement is not supported inside a stencil`, { loc: s.loc, hint: 'see docs/language.md for the statements stencils may contain' });
  }

  /** `compile_assert(cond)`: fails the build at the user's line, naming the values involved. */
  private compileAssert(call: Extract<PyExpr, { t: 'call' }>): void {
    if (call.args.length !== 1 || call.kwargs.length) {
      fail('E_CALL_ARGS', 'compile_assert takes one condition', { loc: call.loc, length: 'compile_assert'.length, hint: 'write compile_assert(N >= 1)' });
    }
    const cond = call.args[0];
    const v = this.constant(cond, 'the compile_assert condition');
    const tv = truthy(v);
    if (tv === undefined) fail('E_NOT_CONSTANT', `the compile_assert condition is ${describeValue(v)}, not a boolean`, { loc: cond.loc, hint: 'assert on externals and constants: compile_assert(N >= 1)' });
    if (tv) return;
    const values = new Map<string, string>();
    const collect = (e: PyExpr): void => {
      const name = dottedName(e);
      if (name !== undefined) {
        const t = this.term(e);
        if ('c' in t && (t.c.k === 'num' || t.c.k === 'bool' || t.c.k === 'str')) values.set(name, describeValue(t.c));
        return;
      }
      for (const child of pyChildren(e)) collect(child);
    };
    collect(cond);
    const given = [...values].map(([k, x]) => `${k} = ${x}`).join(', ');
    fail('E_COMPILE_ASSERT', `compile_assert failed${given ? ` with ${given}` : ''}`, {
      loc: cond.loc,
      hint: 'the externals or constants this stencil was built with violate its assertion: build it with values that satisfy it',
    });
  }

  private ifStmt(s: Extract<PyStmt, { t: 'if' }>): Stmt[] {
    let test = s.test;
    let inlined = false;
    if (test.t === 'call') {
      const f = this.term(test.func);
      if ('c' in f && f.c.k === 'builtin' && f.c.name === '__INLINED') {
        test = test.args[0];
        inlined = true;
      }
    }
    const t = this.conditionTerm(test, 'if');
    if ('c' in t) {
      const tv = truthy(t.c);
      if (tv === undefined) fail('E_NOT_CONSTANT', `condition is ${describeValue(t.c)}`, { loc: test.loc, hint: 'conditions must be booleans or numbers' });
      return this.block(tv ? s.body : s.orelse);
    }
    if (inlined) fail('E_NOT_CONSTANT', '__INLINED(...) needs a compile-time condition', { loc: test.loc, hint: 'use only externals and constants inside __INLINED' });
    return [{ kind: 'if', cond: cast(t.r, 'bool'), then: this.block(s.body), else: this.block(s.orelse), loc: s.loc }];
  }

  /** Lowers an `if`/`while` test, where GT4Py cannot inline helper calls. */
  private conditionTerm(test: PyExpr, where: 'if' | 'while'): Term {
    const saved = this.condition;
    this.condition = where;
    try {
      return this.term(test);
    } finally {
      this.condition = saved;
    }
  }

  private conditionExpr(test: PyExpr, where: 'if' | 'while'): Expr {
    const t = this.conditionTerm(test, where);
    return 'r' in t ? t.r : this.toExpr(t, test);
  }

  private horizontal(s: Extract<PyStmt, { t: 'with' }>): Stmt[] {
    const h = s.items.length === 1 ? this.withCall(s.items[0]) : null;
    if (!h || h.name !== 'horizontal') {
      fail('E_STENCIL_STMT', 'only `with horizontal(region[...])` may be nested inside an interval', { loc: s.loc, hint: 'computation and interval blocks cannot be nested in statements' });
    }
    const regions = h.call.args.map((a) => this.region(a));
    return [{ kind: 'region', regions, body: this.block(s.body), loc: s.loc }];
  }

  private region(e: PyExpr): HorizontalRegion {
    if (e.t !== 'subscript' || e.index.length !== 2) {
      fail('E_REGION', 'expected region[i, j]', { loc: e.loc, hint: 'write region[i_start, :] or region[i_start - 1 : i_start + 1, j_end]' });
    }
    const base = this.term(e.value);
    if (!('c' in base) || base.c.k !== 'builtin' || base.c.name !== 'region') fail('E_REGION', 'expected region[i, j]', { loc: e.loc, hint: 'import region from gt4py.cartesian.gtscript' });
    return { i: this.regionAxis(e.index[0], 'I'), j: this.regionAxis(e.index[1], 'J') };
  }

  private regionAxis(e: PyExpr, axis: 'I' | 'J'): RegionAxis {
    if (e.t === 'slice') {
      return {
        start: e.lower ? this.regionBound(e.lower, axis) : null,
        end: e.upper ? this.regionBound(e.upper, axis) : null,
      };
    }
    const b = this.regionBound(e, axis);
    return { start: b, end: { level: b.level, offset: b.offset + 1 } };
  }

  private regionBound(e: PyExpr, axis: 'I' | 'J'): AxisBound {
    const v = this.constant(e, 'a region bound');
    if (v.k === 'axisIndex') {
      if (v.axis !== axis) fail('E_REGION', `region bound on the ${axis} axis uses an ${v.axis} index`, { loc: e.loc, hint: `use ${axis.toLowerCase()}_start/${axis.toLowerCase()}_end style externals for the ${axis} axis` });
      return v.index >= 0 ? { level: 'start', offset: v.index + v.offset } : { level: 'end', offset: v.index + v.offset };
    }
    if (v.k === 'num' && v.isInt) return v.value >= 0 ? { level: 'start', offset: v.value } : { level: 'end', offset: v.value };
    fail('E_REGION', `region bound must be an axis index or an integer, got ${describeValue(v)}`, { loc: e.loc, hint: 'pass AxisIndex externals such as gtscript.I[0] + 1' });
  }

  // ---- assignment ----

  private assign(s: Extract<PyStmt, { t: 'assign' }>): Stmt[] {
    if (s.targets.length !== 1) fail('E_UNSUPPORTED', 'chained assignment is not supported', { loc: s.loc, hint: 'assign each target separately' });
    const target = s.targets[0];
    if (s.annotation) return this.typedAssign(target, s.annotation, s.value, s.loc);
    if (target.t === 'tuple') {
      // a, b = helper(...)  or  a, b = x, y
      if (s.value.t === 'tuple') {
        if (s.value.elts.length !== target.elts.length) fail('E_UNPACK', `cannot unpack ${s.value.elts.length} values into ${target.elts.length} targets`, { loc: s.loc, hint: 'match the number of targets and values' });
        const values = s.value.elts.map((v) => this.expr(v));
        return target.elts.flatMap((t, i) => this.store(t, values[i], s.loc));
      }
      const results = this.tupleCall(s.value, target.elts.length);
      return target.elts.flatMap((t, i) => this.store(t, results[i], s.loc));
    }
    return this.assignTo(target, s.value, s.loc);
  }

  private assignTo(target: PyExpr, value: PyExpr, loc: SourceLoc): Stmt[] {
    const v = this.term(value);
    if ('c' in v && v.c.k === 'tuple') fail('E_UNPACK', 'a tuple cannot be assigned to a single target', { loc, hint: 'unpack it: a, b = ...' });
    return this.store(target, this.toExpr(v, value), loc);
  }

  /**
   * `tmp: T = value`: a temporary declared with a type. GT4Py (at the pin) takes a dtype
   * (`float`, `np.float32`, ...) or `Field[IJ, dtype]`, a 2-D temporary shared by every
   * level; a field type with other axes it refuses, and so does orch.
   */
  private typedAssign(target: PyExpr, annotation: PyExpr, value: PyExpr, loc: SourceLoc): Stmt[] {
    if (target.t !== 'name') {
      fail('E_ANNOTATION', 'only a new temporary name can carry a type annotation', {
        loc: target.loc,
        hint: 'declare the temporary first (tmp: float = 0), then assign at an offset; GT4Py rejects annotated offset writes too',
      });
    }
    const t = this.loader.eval(annotation, this.scope.module);
    let type: { dtype: DType; axes: Axes };
    if (t.k === 'dtype') type = { dtype: t.dtype, axes: 'IJK' };
    else if (t.k === 'fieldType') type = { dtype: t.dtype, axes: t.axes };
    else {
      fail('E_ANNOTATION', `the annotation of '${target.id}' is not a dtype or a field type${t.k === 'opaque' ? `: ${t.why}` : ''}`, {
        loc: annotation.loc,
        hint: 'annotate temporaries with a dtype (float, int, np.float64, ...) or Field[IJ, dtype]',
      });
    }
    if (type.axes !== 'IJK' && type.axes !== 'IJ') {
      fail('E_TEMP_AXES', `temporary '${target.id}' is declared with axes ${type.axes}`, {
        loc: annotation.loc,
        hint: 'GT4Py types temporaries as IJK or IJ only: a temporary is written at every (i, j) point, so it needs both horizontal axes. Use Field[IJ, dtype] for a 2-D one, or pass a K field as an argument',
      });
    }
    const existing = this.scope.vars.get(target.id);
    if (existing) {
      const decl = existing.k === 'field' ? this.fields.get(existing.name) : undefined;
      if (!decl || decl.role !== 'temp' || decl.dtype !== type.dtype || decl.axes !== type.axes) {
        fail('E_ANNOTATION', `'${target.id}' is already defined${decl ? ` as a ${decl.dtype} ${decl.axes} ${decl.role === 'api' ? 'field argument' : 'temporary'}` : ''}`, {
          loc: target.loc,
          length: target.id.length,
          hint: 'annotate a temporary only where it is first assigned, with one type',
        });
      }
      return this.assignTo(target, value, loc);
    }
    const v = this.term(value);
    if ('c' in v && v.c.k === 'tuple') fail('E_UNPACK', 'a tuple cannot be assigned to a single target', { loc, hint: 'unpack it: a, b = ...' });
    return this.newTemp(target.id, this.toExpr(v, value), loc, type);
  }

  private tupleCall(e: PyExpr, n: number): Expr[] {
    if (e.t !== 'call') fail('E_UNPACK', 'only a helper call returning a tuple can be unpacked', { loc: e.loc, hint: 'return a tuple from a @gtscript.function' });
    const f = this.term(e.func);
    if (!('c' in f) || f.c.k !== 'function') fail('E_UNPACK', 'only a helper call returning a tuple can be unpacked', { loc: e.loc, hint: 'return a tuple from a @gtscript.function' });
    const r = this.inline(f.c.fn, e);
    if (!Array.isArray(r) || r.length !== n) {
      fail('E_UNPACK', `${f.c.fn.name}() returns ${Array.isArray(r) ? r.length : 1} value(s), ${n} expected`, { loc: e.loc, hint: 'match the number of targets to the helper\'s return' });
    }
    return r;
  }

  private store(target: PyExpr, value: Expr, loc: SourceLoc): Stmt[] {
    let name: string;
    if (target.t === 'name') name = target.id;
    else if (target.t === 'subscript' && target.value.t === 'name') {
      name = target.value.id;
      const b = this.lookupVar(name);
      if (!b || b.k !== 'field') fail('E_ASSIGN_TARGET', `'${name}' is not a field`, { loc: target.loc, hint: 'assign to fields or to new temporaries by name' });
      const decl = this.fields.get(b.name)!;
      const { offset: off, kOffset } = this.offsets(target, decl);
      if (kOffset || off.some((o) => o !== 0) || b.offset.some((o) => o !== 0)) {
        const at: Offset = [off[0] + b.offset[0], off[1] + b.offset[1], off[2] + b.offset[2]];
        // GT4Py's K offset write: a field argument, a constant K offset, a level-by-level computation
        const kWrite = !kOffset && at[0] === 0 && at[1] === 0 && this.order !== 'PARALLEL' && decl.role === 'api' && b.offset.every((o) => o === 0);
        if (!kWrite) {
          fail('E_WRITE_OFFSET', `${decl.role === 'temp' ? 'temporary' : 'field'} '${name}' is written at ${kOffset ? 'a variable K offset' : `offset [${at.join(', ')}]`}`, {
            loc: target.loc,
            length: name.length,
            hint: writeOffsetHint(name, at, !!kOffset, this.order, decl.role === 'temp'),
          });
        }
        this.checkWriteAxes(decl, target);
        return [{ kind: 'assign', target: b.name, value: cast(value, decl.dtype), loc, kOffset: at[2] }];
      }
    } else {
      fail('E_ASSIGN_TARGET', 'assignment target must be a name', { loc: target.loc, hint: 'assign to a field, a temporary or a new local name' });
    }
    const scope = this.scope;
    const existing = scope.vars.get(name);
    if (existing && existing.k === 'field' && existing.offset.every((o) => o === 0) && (scope.helper === null || scope.owned.has(existing.name))) {
      const decl = this.fields.get(existing.name)!;
      this.checkWriteAxes(decl, target);
      return [{ kind: 'assign', target: existing.name, value: cast(value, decl.dtype), loc }];
    }
    if (existing && existing.k === 'expr' && existing.expr.kind === 'scalar' && scope.helper === null) {
      fail('E_ASSIGN_SCALAR', `'${name}' is a scalar argument and cannot be assigned`, { loc: target.loc, hint: 'assign the value to a new temporary name instead' });
    }
    // a new local, or a helper assigning to its own parameter (arguments are passed by value)
    return this.newTemp(name, value, loc);
  }

  private newTemp(name: string, value: Expr, loc: SourceLoc, type: { dtype: DType; axes: Axes } = { dtype: value.dtype, axes: 'IJK' }): Stmt[] {
    let real = this.scope.helper === null ? name : `${this.scope.helper}_${name}`;
    while (this.fields.has(real) || this.scalars.has(real)) real = `${real}_${++this.uid}`;
    const decl: FieldDecl = { name: real, dtype: type.dtype, axes: type.axes, role: 'temp' };
    this.checkWriteAxes(decl, { loc, length: name.length });
    this.fields.set(real, decl);
    this.scope.owned.add(real);
    this.scope.vars.set(name, { k: 'field', name: real, offset: [0, 0, 0] });
    return [{ kind: 'assign', target: real, value: cast(value, decl.dtype), loc }];
  }

  /**
   * GT4Py's rule for a write: the field has every parallel axis of the computation (I and
   * J, and K in PARALLEL), else the points that run at once would write the same element.
   */
  private checkWriteAxes(decl: FieldDecl, at: { loc: SourceLoc; length?: number } | PyExpr): void {
    const need = this.order === 'PARALLEL' ? 'IJK' : 'IJ';
    if ([...need].every((a) => decl.axes.includes(a))) return;
    const where = 't' in at ? { loc: at.loc, length: at.t === 'name' ? at.id.length : at.t === 'subscript' && at.value.t === 'name' ? at.value.id.length : undefined } : at;
    fail('E_WRITE_AXES', `${decl.role === 'temp' ? 'temporary' : 'field'} '${decl.name}' (${decl.axes}) is written in a ${this.order} computation, whose parallel axes are ${need}`, {
      ...where,
      hint:
        this.order === 'PARALLEL' && decl.axes === 'IJ'
          ? `GT4Py rejects this too (the levels of a PARALLEL computation run at once and would all write the same ${decl.axes} point): write '${decl.name}' in a computation(FORWARD) or computation(BACKWARD), where the last level written wins`
          : `GT4Py rejects this too (the points that run at once would write the same element): only fields with the I and J axes can be written`,
    });
  }

  // ---- names and fields ----

  private lookupVar(id: string): Binding | undefined {
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
    const v = this.loader.lookup(this.scope.module, id);
    if (v === undefined) {
      const candidates = [...this.scope.vars.keys(), ...this.scope.module.names.keys()];
      const guess = didYouMean(id, candidates);
      fail('E_UNKNOWN_NAME', `name '${id}' is not defined`, {
        loc: e.loc,
        length: id.length,
        hint: guess ? `did you mean '${guess}'?` : 'define it as a module constant, import it, or pass it as an external',
      });
    }
    if (v.k === 'opaque') fail('E_UNKNOWN_NAME', `'${id}': ${v.why}`, { loc: e.loc, length: id.length, hint: 'only literals and simple arithmetic are evaluated at module level' });
    return { c: v };
  }

  /**
   * The offsets of `f[...]`: constants, except along K, where GT4Py also takes an int
   * expression evaluated at the current point (`f[0, 0, lev + 1]`).
   */
  private fieldRead(name: string, offset: Offset): Expr {
    return { kind: 'field', name, offset: [...offset] as Offset, dtype: this.fields.get(name)!.dtype };
  }

  /** Remembers where a field read was written, for diagnostics about it after lowering. */
  private read(f: Expr, e: PyExpr): Expr {
    this.readLocs.set(f, e.loc);
    return f;
  }

  private offsets(e: Extract<PyExpr, { t: 'subscript' }>, f: FieldDecl): { offset: Offset; kOffset?: Expr } {
    const axes = [...f.axes].map((a) => 'IJK'.indexOf(a));
    const terms = e.index.map((x) => this.term(x));
    if (terms.some((t) => 'c' in t && (t.c.k === 'axis' || t.c.k === 'axisOffset'))) return { offset: axisOffsets(e, f, terms) };
    const full = e.index.length === 3;
    if (!full && e.index.length !== axes.length) {
      const counts = axes.length === 3 ? '3' : `${axes.length} or 3`;
      fail('E_OFFSET', `field '${f.name}' (${f.axes}) takes ${counts} offsets, got ${e.index.length}`, {
        loc: e.loc,
        hint: f.axes === 'K' ? 'write ak[1] or ak[0, 0, 1]' : `write offsets per axis (q[1, 0, -1]) or name the axes (q[I + 1], q[K - 1], q[I - 1, K + 1])`,
      });
    }
    const out: Offset = [0, 0, 0];
    let kOffset: Expr | undefined;
    e.index.forEach((x, n) => {
      const d = full ? n : axes[n];
      const v = terms[n];
      if ('r' in v) {
        if (d !== 2) {
          fail('E_OFFSET', `the ${'IJK'[d]} offset of '${f.name}' must be a constant`, { loc: x.loc, hint: 'only K offsets may be computed at run time (f[0, 0, lev]); I and J offsets are integer literals, constants or externals' });
        }
        if (!axes.includes(2)) fail('E_OFFSET', `field '${f.name}' has no K axis, so it takes no K offset`, { loc: x.loc, hint: `'${f.name}' is a ${f.axes} field` });
        if (v.r.dtype !== 'int32' && v.r.dtype !== 'int64') {
          fail('E_OFFSET', `a variable K offset must be an integer, got ${v.r.dtype}`, { loc: x.loc, hint: 'compute the level index in an int temporary or an int field (e.g. lev = 0; ... f[0, 0, lev])' });
        }
        kOffset = cast(v.r, 'int64');
        return;
      }
      if (v.c.k !== 'num' || !v.c.isInt) fail('E_OFFSET', `field offsets must be integers, got ${describeValue(v.c)}`, { loc: x.loc, hint: 'write offsets like q[1, 0, -1]' });
      if (!axes.includes(d) && v.c.value !== 0) {
        fail('E_OFFSET', `field '${f.name}' has no ${'IJK'[d]} axis, so its ${'IJK'[d]} offset must be 0`, { loc: x.loc, hint: `'${f.name}' is a ${f.axes} field` });
      }
      out[d] = v.c.value;
    });
    return { offset: out, kOffset };
  }

  protected subscript(e: Extract<PyExpr, { t: 'subscript' }>): Term {
    if (e.value.t !== 'name') fail('E_UNSUPPORTED', 'only fields can be indexed', { loc: e.loc, hint: 'index a field by name: q[1, 0, 0]' });
    const b = this.lookupVar(e.value.id);
    if (!b || b.k !== 'field') {
      fail('E_UNSUPPORTED', `'${e.value.id}' is not a field and cannot be indexed`, { loc: e.loc, hint: 'only fields and temporaries take offsets' });
    }
    const f = this.fields.get(b.name)!;
    const { offset: off, kOffset } = this.offsets(e, f);
    const offset: Offset = [off[0] + b.offset[0], off[1] + b.offset[1], off[2] + b.offset[2]];
    return { r: this.read(kOffset ? { kind: 'field', name: b.name, offset, kOffset, loc: e.loc, dtype: f.dtype } : { kind: 'field', name: b.name, offset, dtype: f.dtype }, e) };
  }

  protected override attr(e: Extract<PyExpr, { t: 'attr' }>): Term {
    if (e.attr === 'at') {
      fail('E_UNSUPPORTED', 'absolute K indexing field.at(K=...) is not supported', {
        loc: e.loc,
        hint: 'GT4Py has it; orch does not yet: copy the level into a 2-D temporary in a FORWARD computation (with interval(k, k + 1): lev: Field[IJ, float] = q) and read that',
      });
    }
    return super.attr(e);
  }

  protected userCall(callee: Value, e: Extract<PyExpr, { t: 'call' }>): Term {
    if (callee.k === 'function') {
      if (callee.fn.kind === 'stencil' || callee.fn.kind === 'program') {
        fail('E_UNKNOWN_CALL', `'${callee.fn.name}' is a ${callee.fn.kind} and cannot be called from a stencil`, { loc: e.loc, hint: 'call it from a @program, or make it a @gtscript.function' });
      }
      if (this.condition) {
        const name = dottedName(e.func) ?? callee.fn.name;
        const why = this.condition === 'if' ? 'GT4Py rejects it too' : 'GT4Py would inline it once, before the loop, not at every iteration';
        fail('E_CALL_IN_CONDITION', `function call in ${this.condition === 'if' ? 'an if' : 'a while'} condition: '${name}' cannot be inlined there (${why})`, {
          loc: e.loc,
          length: name.length,
          hint: `assign the result to a temporary first (c = ${name}(...)) and test the temporary`,
        });
      }
      const r = this.inline(callee.fn, e);
      if (Array.isArray(r)) fail('E_UNPACK', `${callee.fn.name}() returns ${r.length} values`, { loc: e.loc, hint: 'unpack them: a, b = f(...)' });
      return { r };
    }
    if (callee.k === 'builtin') rejectBuiltin(callee.name, dottedName(e.func) ?? callee.name, e.loc);
    const what = e.func.t === 'name' ? e.func.id : e.func.t === 'attr' ? e.func.attr : 'this';
    fail('E_UNKNOWN_CALL', `cannot call ${describeValue(callee)} ('${what}') in a stencil`, {
      loc: e.func.loc,
      length: what.length,
      hint: 'stencils may call math builtins (sqrt, exp, log, min, max, abs, ...) and @gtscript.function helpers',
    });
  }

  /** Inlines a helper call: statements go to `this.pre`, the result expression(s) are returned. */
  private inline(fn: FunctionInfo, e: Extract<PyExpr, { t: 'call' }>): Expr | Expr[] {
    if (fn.kind !== 'gtfunction' && fn.kind !== 'plain') {
      fail('E_UNKNOWN_CALL', `'${fn.name}' is not a @gtscript.function`, { loc: e.loc, hint: 'decorate helpers with @gtscript.function' });
    }
    if (this.inlineDepth > 32) fail('E_RECURSION', `recursive call of '${fn.name}'`, { loc: e.loc, hint: 'helpers cannot call themselves' });
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
      fail('E_CALL_ARGS', `${fn.name}() takes ${params.length} arguments, got ${e.args.length}`, { loc: e.loc, hint: `see the definition of ${fn.name}` });
    }
    for (const kw of e.kwargs) {
      if (!params.some((p) => p.name === kw.name)) {
        const guess = didYouMean(kw.name ?? '', params.map((p) => p.name));
        fail('E_CALL_ARGS', `${fn.name}() has no parameter '${kw.name}'`, { loc: kw.loc, hint: guess ? `did you mean '${guess}'?` : `parameters: ${params.map((p) => p.name).join(', ')}` });
      }
    }
    params.forEach((p, i) => {
      const a = argFor(i, p.name);
      if (a === undefined) {
        if (!p.default) fail('E_CALL_ARGS', `${fn.name}() is missing argument '${p.name}'`, { loc: e.loc, hint: `pass ${p.name}=...` });
        const dv = this.loader.eval(p.default, fn.module);
        bound.set(p.name, { k: 'value', value: dv });
        return;
      }
      const t = this.term(a);
      if ('c' in t) bound.set(p.name, { k: 'value', value: t.c });
      else if (t.r.kind === 'field' && !t.r.kOffset) bound.set(p.name, { k: 'field', name: t.r.name, offset: t.r.offset });
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
          if (i !== def.body.length - 1) fail('E_RETURN', 'return must be the last statement of a helper', { loc: s.loc, hint: 'compute the result into a local and return it at the end' });
          if (!s.value) fail('E_RETURN', 'a helper must return a value', { loc: s.loc, hint: 'return an expression or a tuple' });
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
    if (result === null) fail('E_RETURN', `helper '${fn.name}' does not return a value`, { loc: def.nameLoc, hint: 'end the helper with `return <expression>`' });
    return result;
  }

}

/**
 * What GT4Py (at the pin NDSL uses) does with a write at an offset, and the way out in orch:
 * it rejects I/J offsets everywhere and K offsets in PARALLEL; it accepts a constant K offset
 * in FORWARD/BACKWARD, which orch does not compile yet.
 */
function writeOffsetHint(name: string, at: Offset, variableK: boolean, order: IterationOrder, temporary: boolean): string {
  if (at[0] !== 0 || at[1] !== 0) return `a stencil writes each point only at itself (GT4Py rejects I and J offset writes too): write ${name} = ... and shift the reads instead (e.g. ${name} = q[-1, 0, 0])`;
  if (variableK) {
    return order === 'PARALLEL'
      ? 'GT4Py rejects K offset writes in PARALLEL too (the levels have no order): use computation(FORWARD) or computation(BACKWARD)'
      : `GT4Py accepts writes at a variable K offset in FORWARD and BACKWARD, but orch writes only at a constant offset yet: make each level write ${name} at itself and read its source at a variable K offset (${name} = q[0, 0, lev], with lev computed per level)`;
  }
  if (order === 'PARALLEL') return `GT4Py rejects K offset writes in PARALLEL too (the levels have no order): use computation(FORWARD) or computation(BACKWARD), or write ${name} at its own level and shift the reads`;
  const k = at[2];
  const shift = (d: number) => `[0, 0, ${-d}]`;
  const rewrite = `write the level itself and read one level ${k > 0 ? 'below' : 'above'} instead (${name}[0, 0, ${k}] = f(${name}, q) over levels L is ${name} = f(${name}${shift(k)}, q${shift(k)}) over levels L ${k > 0 ? '+' : '-'} ${Math.abs(k)})`;
  if (temporary) return `orch writes only field arguments at a K offset, not temporaries: ${rewrite}`;
  return `write the field argument '${name}' itself at the offset, or ${rewrite}`;
}

/** The offset of `f[I + 1, K - 1]`: each index names an axis of the field, at most once. */
function axisOffsets(e: Extract<PyExpr, { t: 'subscript' }>, f: FieldDecl, terms: Term[]): Offset {
  const out: Offset = [0, 0, 0];
  const seen = new Set<string>();
  terms.forEach((t, n) => {
    const x = e.index[n];
    if (!('c' in t) || (t.c.k !== 'axis' && t.c.k !== 'axisOffset')) {
      fail('E_OFFSET', `field '${f.name}' is indexed by axis names and plain offsets at once`, { loc: x.loc, hint: 'name every axis (q[I + 1, K - 1]) or give every offset (q[1, 0, -1])' });
    }
    const axis = t.c.axis;
    if (!f.axes.includes(axis)) fail('E_OFFSET', `field '${f.name}' (${f.axes}) has no ${axis} axis`, { loc: x.loc, hint: `'${f.name}' is a ${f.axes} field: offset it along ${[...f.axes].join(', ')}` });
    if (seen.has(axis)) fail('E_OFFSET', `the ${axis} offset of '${f.name}' is given twice`, { loc: x.loc, hint: `write each axis once: ${f.name}[I + 1, K - 1]` });
    seen.add(axis);
    out['IJK'.indexOf(axis)] = t.c.k === 'axisOffset' ? t.c.offset : 0;
  });
  return out;
}

/** `__externals__` or `__gtscript__` when `module` names one of GT4Py's placeholder modules, bare or qualified. */
function placeholderModule(module: string): '__externals__' | '__gtscript__' | null {
  const bare = module.startsWith('gt4py.cartesian.') ? module.slice('gt4py.cartesian.'.length) : module;
  return bare === '__externals__' || bare === '__gtscript__' ? bare : null;
}

/** GT4Py's rules for the intervals of one computation: disjoint, and written in execution order. */
function checkIntervalSequence(before: readonly IntervalBlock[], iv: IntervalBlock, order: IterationOrder): void {
  const clash = before.find((o) => intervalsOverlap(o, iv));
  if (clash) {
    fail('E_INTERVAL_OVERLAP', `${intervalText(iv.start, iv.end)} overlaps ${intervalText(clash.start, clash.end)} (line ${clash.loc.line}) in the same computation`, {
      loc: iv.loc,
      length: 'interval'.length,
      hint: 'the intervals of one computation must not share levels: split the work into separate `with computation(...)` blocks, or adjust the bounds',
    });
  }
  const prev = before[before.length - 1];
  const backward = order === 'BACKWARD';
  if (prev && (backward ? boundRank(iv.start) > boundRank(prev.start) : boundRank(iv.start) < boundRank(prev.start))) {
    fail('E_INTERVAL_ORDER', `${intervalText(iv.start, iv.end)} comes after ${intervalText(prev.start, prev.end)} but runs before it in a ${order} computation`, {
      loc: iv.loc,
      length: 'interval'.length,
      hint: `write the intervals in the order they run (${backward ? 'top level first' : 'bottom level first'}), as GT4Py requires`,
    });
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
