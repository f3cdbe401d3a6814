import { fail } from '../../core/diagnostics.js';
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
        const runtime = [...intervals, iv].find((x) => this.runtimeIntervals.has(x));
        if (runtime && intervals.length) {
          // GT4Py cannot order or check such intervals either (its block-order check needs static bounds)
          fail('E_INTERVAL', 'an interval with a bound known only at run time must be the only interval of its computation', {
            loc: runtime.loc,
            length: 'interval'.length,
            hint: 'give it its own `with computation(...), interval(...):` block; consecutive computations run in the order they are written',
          });
        }
        checkIntervalSequence(intervals, iv, order.order);
        intervals.push(iv);
      }
    } else {
      fail('E_STENCIL_STMT', 'a computation block takes computation(...), at most one interval(...) and then at most one horizontal(...)', { loc: s.loc, hint: 'nest further intervals as `with interval(...):` blocks' });
    }
    return { order: order.order, intervals, loc: s.loc };
  }

  protected intervalBlock(item: PyExpr, body: PyStmt[], order: IterationOrder): IntervalBlock {
    const iv = this.withCall(item);
    if (!iv || iv.name !== 'interval') fail('E_STENCIL_STMT', 'expected interval(...)', { loc: item.loc, hint: 'write interval(...), interval(0, 1), interval(1, None), interval(0, -1) ...' });
    const args = iv.call.args;
    let start: AxisBound = { level: 'start', offset: 0 };
    let end: AxisBound = { level: 'end', offset: 0 };
    const runtime: RuntimeBounds = {};
    if (args.length === 1) {
      const v = this.constant(args[0], 'the interval');
      if (!(v.k === 'builtin' && v.name === '...')) fail('E_INTERVAL', 'interval takes (...) or (start, end)', { loc: iv.call.loc, hint: 'write interval(...) or interval(start, end)' });
    } else if (args.length === 2) {
      for (const a of args) this.rejectAxisIndexSyntax(a);
      const lo = this.term(args[0]);
      const hi = this.term(args[1]);
      if ('c' in lo && lo.c.k === 'none') {
        fail('E_INTERVAL', 'Invalid interval range specification: an interval starts at a level, not at None', {
          loc: args[0].loc,
          hint: 'GT4Py rejects this too: start from the bottom level, interval(0, -1); None ends an interval at the top, interval(1, None)',
        });
      }
      if ('r' in lo) runtime.lo = runtimeBound(lo.r, this.fields, args[0].loc);
      else start = this.levelBound(lo.c, args[0], true);
      if ('r' in hi) runtime.hi = runtimeBound(hi.r, this.fields, args[1].loc);
      else end = this.levelBound(hi.c, args[1], false);
    } else {
      fail('E_INTERVAL', 'interval takes (...) or (start, end)', { loc: iv.call.loc, hint: 'write interval(...) or interval(start, end)' });
    }
    if (intervalMinLevels(start, end) === null) {
      fail('E_INTERVAL', `Invalid interval range specification: ${intervalText(start, end)} is empty for every domain`, {
        loc: iv.call.loc,
        length: 'interval'.length,
        hint: 'the start must lie below the end: positive bounds count from the bottom level, negative ones from the top (interval(1, -1) skips both)',
      });
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
        fail('E_INTERVAL', `Invalid interval range specification: ${e.value.id}[...] cannot be written in an interval`, {
          loc: e.loc,
          hint: `GT4Py rejects this too: write the level as an integer, interval(2, -1), or pass the axis index as an external`,
        });
      }
    }
    for (const c of pyChildren(e)) this.rejectAxisIndexSyntax(c);
  }

  /** Interval blocks whose bounds are (partly) known only at run time. */
  protected readonly runtimeIntervals = new WeakSet<IntervalBlock>();

  protected levelBound(v: Value, e: PyExpr, isStart: boolean): AxisBound {
    // interval(None, ...) and K[n] written in a bound are refused before this (intervalBlock)
    if (v.k === 'opaque') fail('E_NOT_CONSTANT', `an interval bound: ${v.why}`, { loc: e.loc, hint: 'use literals, module constants, externals, scalars or IJ fields here' });
    if (v.k === 'none') return { level: 'end', offset: 0 };
    if (v.k === 'num' && v.isInt) {
      if (v.value < 0) return { level: 'end', offset: v.value };
      if (v.value === 0 && !isStart) return { level: 'start', offset: 0 };
      return { level: 'start', offset: v.value };
    }
    if (v.k === 'axisIndex' && v.axis === 'K') return v.index >= 0 ? { level: 'start', offset: v.index + v.offset } : { level: 'end', offset: v.index + v.offset };
    fail('E_INTERVAL', `interval bound must be an integer or None, got ${describeValue(v)}`, { loc: e.loc, hint: 'use integers: interval(0, 1), interval(1, None), interval(0, -1)' });
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
  protected compileAssert(call: Extract<PyExpr, { t: 'call' }>): void {
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
      if (tv === undefined) fail('E_NOT_CONSTANT', `condition is ${describeValue(t.c)}`, { loc: test.loc, hint: 'conditions must be booleans or numbers' });
      return this.block(tv ? s.body : s.orelse);
    }
    if (inlined) fail('E_NOT_CONSTANT', '__INLINED(...) needs a compile-time condition', { loc: test.loc, hint: 'use only externals and constants inside __INLINED' });
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
      fail('E_STENCIL_STMT', 'only `with horizontal(region[...])` may be nested inside an interval', { loc: s.loc, hint: 'computation and interval blocks cannot be nested in statements' });
    }
    if (this.inRegion) {
      fail('E_REGION', 'Cannot nest `with` node inside a horizontal region.', {
        loc: s.loc,
        hint: 'GT4Py refuses a region inside a region: write the inner block as its own `with horizontal(region[...])` block after the outer one, on the intersection of both regions',
      });
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
      fail('E_REGION', 'expected region[i, j]', { loc: e.loc, hint: 'write region[i_start, :] or region[i_start - 1 : i_start + 1, j_end]' });
    }
    const base = this.term(e.value);
    if (!('c' in base) || base.c.k !== 'builtin' || base.c.name !== 'region') fail('E_REGION', 'expected region[i, j]', { loc: e.loc, hint: 'import region from gt4py.cartesian.gtscript' });
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
        fail('E_REGION', `Invalid horizontal range specification: expected ${ax}[0] or ${ax}[-1], got ${ax}[${written.index.map((x) => (x.t === 'num' ? x.value : x.t === 'unary' && x.operand.t === 'num' ? -x.operand.value : '...')).join(', ')}]`, {
          loc: written.loc,
          hint: `GT4Py takes only the ends of the axis written in a region, with offsets added to them: write ${ax}[0] + 2 or ${ax}[-1] - 1`,
        });
      }
    }
    const v = this.constant(e, 'a region bound');
    if (v.k === 'axisIndex') {
      if (v.axis !== axis) fail('E_REGION', `region bound on the ${axis} axis uses an ${v.axis} index`, { loc: e.loc, hint: `use ${axis.toLowerCase()}_start/${axis.toLowerCase()}_end style externals for the ${axis} axis` });
      return v.index >= 0 ? { level: 'start', offset: v.index + v.offset } : { level: 'end', offset: v.index + v.offset };
    }
    if (v.k === 'num' && v.isInt) return v.value >= 0 ? { level: 'start', offset: v.value } : { level: 'end', offset: v.value };
    fail('E_REGION', `region bound must be an axis index or an integer, got ${describeValue(v)}`, { loc: e.loc, hint: 'pass AxisIndex externals such as gtscript.I[0] + 1' });
  }
}

/** GT4Py's rules for the intervals of one computation: disjoint, and written in execution order. */
function checkIntervalSequence(before: readonly IntervalBlock[], iv: IntervalBlock, order: IterationOrder): void {
  const clash = before.find((o) => intervalsOverlap(o, iv));
  if (clash) {
    fail('E_INTERVAL_OVERLAP', `Overlapping intervals detected: ${intervalText(iv.start, iv.end)} overlaps ${intervalText(clash.start, clash.end)} (line ${clash.loc.line}) in the same computation`, {
      loc: iv.loc,
      length: 'interval'.length,
      hint: 'the intervals of one computation must not share levels: split the work into separate `with computation(...)` blocks, or adjust the bounds',
    });
  }
  const prev = before[before.length - 1];
  const backward = order === 'BACKWARD';
  if (prev && (backward ? boundRank(iv.start) > boundRank(prev.start) : boundRank(iv.start) < boundRank(prev.start))) {
    fail('E_INTERVAL_ORDER', `Intervals must be specified in order of execution: ${intervalText(iv.start, iv.end)} comes after ${intervalText(prev.start, prev.end)} but runs before it in a ${order} computation`, {
      loc: iv.loc,
      length: 'interval'.length,
      hint: `write the intervals in the order they run (${backward ? 'top level first' : 'bottom level first'}), as GT4Py requires`,
    });
  }
}
