import { notSupported } from '../../core/diagnostics/codes.js';
import { boundRank, intervalMinLevels, intervalsOverlap, intervalText } from '../../core/ir/intervals.js';
import type { AxisBound, Computation, Expr, HorizontalRegion, IntervalBlock, IterationOrder, RegionAxis, Stmt } from '../../core/ir/types.js';
import { dottedName, pyChildren, type PyExpr, type PyStmt } from '../../core/python/ast.js';
import { truthy } from '../../core/frontend/constEval.js';
import { unsupportedHint, type Term } from './ExprLowering.js';
import { checkParallelModel } from './parallelModel.js';
import { placeholderModule } from './StencilBindings.js';
import { StencilAssignments } from './StencilAssignments.js';
import { cast } from './typeRules.js';
import { describeValue, type Value } from '../../core/frontend/values.js';
import { maskStatements, runtimeBound, scalarBounds, type RuntimeBounds } from './runtimeInterval.js';
import { computationBlockForm, computationBodyNotIntervals, expectedComputation, expectedInterval, intervalAlwaysEmpty, intervalArguments, intervalAxisIndex, intervalBoundNotInteger, intervalStartsAtNone, intervalsOutOfOrder, iterationOrderUnknown, nestedNonRegionWith, nestedRegion, overlappingIntervals, regionAxisEndsOnly, regionBoundNotIndex, regionBoundWrongAxis, regionNotIJ, regionNotImported, returnNotAtEnd, runtimeIntervalNotAlone, stencilExpressionStatement } from '../../core/diagnostics/stencilErrors.js';
import { compileAssertFailed, compileAssertNotBoolean, conditionNotConstant, forLoopInStencil, inlinedNeedsConstant, intervalBoundNotConstant, stencilStatementNotSupported } from '../../core/diagnostics/frontendErrors.js';
import { compileAssertArgs, computationArgs } from '../../core/diagnostics/programErrors.js';

/**
 * Statements of a stencil: computation and interval blocks, horizontal regions, `if`,
 * `while` and `compile_assert`; compile-time conditions are folded here.
 */
export abstract class StencilStatements extends StencilAssignments {
  protected withCall(e: PyExpr): { name: string; call: Extract<PyExpr, { t: 'call' }> } | null {
    if (e.t !== 'call') return null;
    const f = this.term(e.func);
    if ('c' in f && f.c.k === 'builtin') return { name: f.c.name, call: e };
    return null;
  }

  protected computation(s: Extract<PyStmt, { t: 'with' }>): Computation {
    const first = this.withCall(s.items[0]);
    if (!first || first.name !== 'computation') {
      throw expectedComputation(s.items[0].loc);
    }
    if (first.call.args.length !== 1) throw computationArgs(first.call.loc);
    const order = this.constant(first.call.args[0], 'the iteration order');
    if (order.k !== 'order') throw iterationOrderUnknown(first.call.args[0].loc);
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
          throw computationBodyNotIntervals(b.loc);
        }
        const iv = this.intervalBlock(b.items[0], b.body, order.order);
        const runtime = [...intervals, iv].find((x) => this.runtimeIntervals.has(x));
        if (runtime && intervals.length) {
          // GT4Py cannot order or check such intervals either (its block-order check needs static bounds)
          throw runtimeIntervalNotAlone(runtime.loc);
        }
        checkIntervalSequence(intervals, iv, order.order);
        intervals.push(iv);
      }
    } else {
      throw computationBlockForm(s.loc);
    }
    return { order: order.order, intervals, loc: s.loc };
  }

  protected intervalBlock(item: PyExpr, body: PyStmt[], order: IterationOrder): IntervalBlock {
    const iv = this.withCall(item);
    if (!iv || iv.name !== 'interval') throw expectedInterval(item.loc);
    const args = iv.call.args;
    let start: AxisBound = { level: 'start', offset: 0 };
    let end: AxisBound = { level: 'end', offset: 0 };
    const runtime: RuntimeBounds = {};
    if (args.length === 1) {
      const v = this.constant(args[0], 'the interval');
      if (!(v.k === 'builtin' && v.name === '...')) throw intervalArguments(iv.call.loc);
    } else if (args.length === 2) {
      for (const a of args) this.rejectAxisIndexSyntax(a);
      const lo = this.term(args[0]);
      const hi = this.term(args[1]);
      if ('c' in lo && lo.c.k === 'none') {
        throw intervalStartsAtNone(args[0].loc);
      }
      if ('r' in lo) runtime.lo = runtimeBound(lo.r, this.fields, args[0].loc);
      else start = this.levelBound(lo.c, args[0], true);
      if ('r' in hi) runtime.hi = runtimeBound(hi.r, this.fields, args[1].loc);
      else end = this.levelBound(hi.c, args[1], false);
    } else {
      throw intervalArguments(iv.call.loc);
    }
    if (intervalMinLevels(start, end) === null) {
      throw intervalAlwaysEmpty(intervalText(start, end), iv.call.loc);
    }
    const saved = this.pre;
    this.pre = [];
    this.order = order;
    const known = new Set(this.fields.keys());
    const stmts = this.block(body);
    this.pre = saved;
    const declaredHere = new Set([...this.fields.keys()].filter((n) => !known.has(n)));
    checkParallelModel({ body: stmts, order, start, end, declaredHere }, this.fields, (x) => this.readLocs.get(x));
    if (!runtime.lo && !runtime.hi) return { start, end, body: stmts, loc: iv.call.loc };
    const block: IntervalBlock = { start, end, body: maskStatements(stmts, runtime, iv.call.loc), loc: iv.call.loc };
    // bounds from scalars are checked against the call's domain (expandStencil); a field's differ per column
    if (scalarBounds(runtime)) block.runtime = structuredClone(runtime);
    this.runtimeIntervals.add(block);
    return block;
  }

  /**
   * `interval(K[2], -1)`: GT4Py takes axis indices in vertical intervals only as externals'
   * values, never written as a subscript.
   */
  protected rejectAxisIndexSyntax(e: PyExpr): void {
    if (e.t === 'subscript' && e.value.t === 'name') {
      const base = this.term(e.value);
      if ('c' in base && base.c.k === 'axis') {
        throw intervalAxisIndex(e.value.id, e.loc);
      }
    }
    for (const c of pyChildren(e)) this.rejectAxisIndexSyntax(c);
  }

  /** Interval blocks whose bounds are (partly) known only at run time. */
  protected readonly runtimeIntervals = new WeakSet<IntervalBlock>();

  protected levelBound(v: Value, e: PyExpr, isStart: boolean): AxisBound {
    // interval(None, ...) and K[n] written in a bound are refused before this (intervalBlock)
    if (v.k === 'opaque') throw intervalBoundNotConstant(v.why, e.loc);
    if (v.k === 'none') return { level: 'end', offset: 0 };
    if (v.k === 'num' && v.isInt) {
      if (v.value < 0) return { level: 'end', offset: v.value };
      if (v.value === 0 && !isStart) return { level: 'start', offset: 0 };
      return { level: 'start', offset: v.value };
    }
    if (v.k === 'axisIndex' && v.axis === 'K') return v.index >= 0 ? { level: 'start', offset: v.index + v.offset } : { level: 'end', offset: v.index + v.offset };
    throw intervalBoundNotInteger(describeValue(v), e.loc);
  }

  /** A subscript of an axis (`K[2]`) inside `e`, as written. */
  protected axisSubscript(e: PyExpr): PyExpr | undefined {
    if (e.t === 'subscript') {
      const base = this.term(e.value);
      if ('c' in base && base.c.k === 'axis') return e;
    }
    for (const c of pyChildren(e)) {
      const found = this.axisSubscript(c);
      if (found) return found;
    }
    return undefined;
  }

  protected block(stmts: PyStmt[]): Stmt[] {
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

  protected stmt(s: PyStmt): Stmt[] {
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
        throw stencilExpressionStatement(s.loc);
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
        throw returnNotAtEnd(s.loc);
      // eslint-disable-next-line no-fallthrough
      case 'for':
        throw forLoopInStencil(s.loc);
      // eslint-disable-next-line no-fallthrough
      case 'try':
        throw notSupported('try/except', 'gtscript', { loc: s.loc, length: s.length }, unsupportedHint('try/except'));
      // eslint-disable-next-line no-fallthrough
      case 'unsupported':
        throw notSupported(s.what, 'gtscript', { loc: s.loc, length: s.length }, 'see docs/language.md for the statements stencils may contain');
      // eslint-disable-next-line no-fallthrough
      default:
        break;
    }
    throw stencilStatementNotSupported(s.t, s.loc);
  }

  /** `compile_assert(cond)`: fails the build at the user's line, naming the values involved. */
  protected compileAssert(call: Extract<PyExpr, { t: 'call' }>): void {
    if (call.args.length !== 1 || call.kwargs.length) {
      throw compileAssertArgs(call.loc);
    }
    const cond = call.args[0];
    const v = this.constant(cond, 'the compile_assert condition');
    const tv = truthy(v);
    if (tv === undefined) throw compileAssertNotBoolean(describeValue(v), cond.loc);
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
    throw compileAssertFailed(given, cond.loc);
  }

  protected ifStmt(s: Extract<PyStmt, { t: 'if' }>): Stmt[] {
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
      if (tv === undefined) throw conditionNotConstant(describeValue(t.c), test.loc);
      return this.block(tv ? s.body : s.orelse);
    }
    if (inlined) throw inlinedNeedsConstant(test.loc);
    return [{ kind: 'if', cond: cast(t.r, 'bool'), then: this.block(s.body), else: this.block(s.orelse), loc: s.loc }];
  }

  /** Lowers an `if`/`while` test, where GT4Py cannot inline helper calls. */
  protected conditionTerm(test: PyExpr, where: 'if' | 'while'): Term {
    const saved = this.condition;
    this.condition = where;
    try {
      return this.term(test);
    } finally {
      this.condition = saved;
    }
  }

  protected conditionExpr(test: PyExpr, where: 'if' | 'while'): Expr {
    const t = this.conditionTerm(test, where);
    return 'r' in t ? t.r : this.toExpr(t, test);
  }

  protected horizontal(s: Extract<PyStmt, { t: 'with' }>): Stmt[] {
    const h = s.items.length === 1 ? this.withCall(s.items[0]) : null;
    if (!h || h.name !== 'horizontal') {
      throw nestedNonRegionWith(s.loc);
    }
    if (this.inRegion) {
      throw nestedRegion(s.loc);
    }
    const regions = h.call.args.map((a) => this.region(a));
    this.inRegion = true;
    try {
      return [{ kind: 'region', regions, body: this.block(s.body), loc: s.loc }];
    } finally {
      this.inRegion = false;
    }
  }

  protected region(e: PyExpr): HorizontalRegion {
    if (e.t !== 'subscript' || e.index.length !== 2) {
      throw regionNotIJ(e.loc);
    }
    const base = this.term(e.value);
    if (!('c' in base) || base.c.k !== 'builtin' || base.c.name !== 'region') throw regionNotImported(e.loc);
    return { i: this.regionAxis(e.index[0], 'I'), j: this.regionAxis(e.index[1], 'J') };
  }

  protected regionAxis(e: PyExpr, axis: 'I' | 'J'): RegionAxis {
    if (e.t === 'slice') {
      return {
        start: e.lower ? this.regionBound(e.lower, axis) : null,
        end: e.upper ? this.regionBound(e.upper, axis) : null,
      };
    }
    const b = this.regionBound(e, axis);
    return { start: b, end: { level: b.level, offset: b.offset + 1 } };
  }

  protected regionBound(e: PyExpr, axis: 'I' | 'J'): AxisBound {
    const written = this.axisSubscript(e);
    if (written?.t === 'subscript') {
      // GT4Py's HorizontalIntervalParser: a written I[...] / J[...] names an end of the axis, offsets are added to it
      const index = written.index.length === 1 ? this.constant(written.index[0], 'a region bound') : undefined;
      if (!index || index.k !== 'num' || (index.value !== 0 && index.value !== -1)) {
        const ax = written.value.t === 'name' ? written.value.id : axis;
        throw regionAxisEndsOnly(ax, written.index.map((x) => (x.t === 'num' ? x.value : x.t === 'unary' && x.operand.t === 'num' ? -x.operand.value : '...')).join(', '), written.loc);
      }
    }
    const v = this.constant(e, 'a region bound');
    if (v.k === 'axisIndex') {
      if (v.axis !== axis) throw regionBoundWrongAxis(axis, v.axis, axis.toLowerCase(), e.loc);
      return v.index >= 0 ? { level: 'start', offset: v.index + v.offset } : { level: 'end', offset: v.index + v.offset };
    }
    if (v.k === 'num' && v.isInt) return v.value >= 0 ? { level: 'start', offset: v.value } : { level: 'end', offset: v.value };
    throw regionBoundNotIndex(describeValue(v), e.loc);
  }
}

/** GT4Py's rules for the intervals of one computation: disjoint, and written in execution order. */
function checkIntervalSequence(before: readonly IntervalBlock[], iv: IntervalBlock, order: IterationOrder): void {
  const clash = before.find((o) => intervalsOverlap(o, iv));
  if (clash) {
    throw overlappingIntervals(intervalText(iv.start, iv.end), intervalText(clash.start, clash.end), clash.loc.line, iv.loc);
  }
  const prev = before[before.length - 1];
  const backward = order === 'BACKWARD';
  if (prev && (backward ? boundRank(iv.start) > boundRank(prev.start) : boundRank(iv.start) < boundRank(prev.start))) {
    throw intervalsOutOfOrder(intervalText(iv.start, iv.end), intervalText(prev.start, prev.end), order, backward, iv.loc);
  }
}
