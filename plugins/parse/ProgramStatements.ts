import { notSupported } from '../../core/diagnostics/codes.js';
import type { ArrayDecl, DType, Expr, PStmt, SourceLoc } from '../../core/ir/types.js';
import type { PyExpr, PyStmt } from '../../core/python/ast.js';
import { truthy } from '../../core/frontend/constEval.js';
import { valueToExpr, type Term } from './ExprLowering.js';
import { cast } from './typeRules.js';
import { visitExpr } from '../../core/ir/visit.js';
import { describeValue, type FunctionInfo } from '../../core/frontend/values.js';
import { ProgramScope } from './ProgramScope.js';
import type { PBinding } from './programBindings.js';
import { expectedField, shapeUnpackCount, unpackNotTuple } from '../../core/diagnostics/stencilErrors.js';
import { dtypeNotType, fieldAliasInFlow, fieldReassigned, programAssignsField, programAssignsOnlyNames, programExpressionStatement, programReturns, rangeArgumentCount, runtimeContainer, temporaryArguments, temporaryExtentCount, temporaryLikeDataDims, temporaryNotAssignedToName, temporaryShapeUnknown, temporaryUnknownParameter } from '../../core/diagnostics/programErrors.js';
import { conditionNotConstant, loopVariableNotName, notAnAssignableValue, programChainedAssignment, programLoopNotRange, programStatementNotSupported, rangeStepZero } from '../../core/diagnostics/frontendErrors.js';

/** Program lowering, layer 2: statements, control flow, scalars and temporaries. */
export abstract class ProgramStatements extends ProgramScope {
  // Defined by the layers above; declared here for the calls this layer makes.
  protected abstract callStmt(e: Extract<PyExpr, { t: 'call' }>): PStmt[];
  protected abstract callbackCall(fn: FunctionInfo, e: Extract<PyExpr, { t: 'call' }>, target: PyExpr | null, bound?: Extract<PBinding, { k: 'callback' }> | null): PStmt;
  protected abstract intTuple(e: PyExpr, what: string): Expr[];

  protected block(stmts: PyStmt[]): PStmt[] {
    return stmts.flatMap((s) => this.stmt(s));
  }

  /** The body of a runtime if/while/for: names bound there cannot alias fields. */
  protected runtimeBlock(stmts: PyStmt[]): PStmt[] {
    this.runtimeFlow++;
    try {
      return this.block(stmts);
    } finally {
      this.runtimeFlow--;
    }
  }

  protected stmt(s: PyStmt): PStmt[] {
    switch (s.t) {
      case 'pass':
        return [];
      case 'expr':
        if (s.value.t === 'str') return [];
        if (s.value.t === 'call') return this.callStmt(s.value);
        throw programExpressionStatement(s.loc);
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
          if (tv === undefined) throw conditionNotConstant(describeValue(t.c), s.test.loc);
          return this.block(tv ? s.body : s.orelse);
        }
        const pre = this.materialize([s.body, s.orelse], s.loc);
        return [...pre, { kind: 'if', cond: cast(t.r, 'bool'), then: this.runtimeBlock(s.body), else: this.runtimeBlock(s.orelse), loc: s.loc }];
      }
      case 'return':
        if (s.value) throw programReturns(s.loc);
        throw notSupported('an early return', 'a program', { loc: s.loc }, 'use if/else around the remaining statements');
      // eslint-disable-next-line no-fallthrough
      case 'unsupported':
        throw notSupported(s.what, 'a program', { loc: s.loc, length: s.length }, 'programs may call stencils, programs and callbacks, and use scalar arithmetic, for/while/if; see docs/programs.md');
      // eslint-disable-next-line no-fallthrough
      default:
        throw programStatementNotSupported(/^[aeiou]/.test(s.t), s.t, s.loc);
    }
  }

  /**
   * Names assigned inside runtime control flow are runtime variables from then on: a
   * compile-time value they hold now is materialized before the loop or branch.
   */
  protected materialize(bodies: PyStmt[][], loc: SourceLoc): PStmt[] {
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

  protected forStmt(s: Extract<PyStmt, { t: 'for' }>): PStmt[] {
    if (s.target.t !== 'name') throw loopVariableNotName(s.target.loc);
    const it = s.iter;
    if (it.t === 'list' || it.t === 'tuple') {
      throw runtimeContainer(it.t, it.loc);
    }
    const rangeFn = it.t === 'call' ? this.term(it.func) : null;
    if (it.t !== 'call' || !rangeFn || !('c' in rangeFn) || rangeFn.c.k !== 'builtin' || rangeFn.c.name !== 'range') {
      throw programLoopNotRange(it.loc);
    }
    const args = it.args.map((a) => cast(this.expr(a), 'int64'));
    if (args.length < 1 || args.length > 3) throw rangeArgumentCount(it.loc);
    const one: Expr = { kind: 'lit', value: 1, dtype: 'int64' };
    const zero: Expr = { kind: 'lit', value: 0, dtype: 'int64' };
    const [start, stop, step] = args.length === 1 ? [zero, args[0], one] : args.length === 2 ? [args[0], args[1], one] : [args[0], args[1], args[2]];
    if (step.kind === 'lit' && step.value === 0) throw rangeStepZero(it.loc);
    const pre = this.materialize([s.body], s.loc);
    this.scope.vars.delete(s.target.id);
    const v = this.declareScalar(s.target.id, 'int64');
    return [...pre, { kind: 'for', var: v, start, stop, step, body: this.runtimeBlock(s.body), loc: s.loc }];
  }

  protected declareScalar(pyName: string, dtype: DType): string {
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

  protected assign(s: Extract<PyStmt, { t: 'assign' }>): PStmt[] {
    if (s.targets.length !== 1) throw programChainedAssignment(s.loc);
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
        if (this.runtimeFlow) throw fieldAliasInFlow(target.id, s.loc);
        this.scope.vars.set(target.id, b);
        return [];
      }
    }
    if (target.t === 'tuple') {
      // nx, ny, nz = q.shape
      if (value.t === 'attr' && value.attr === 'shape') {
        const arr = this.arrayOf(value.value);
        if (target.elts.length !== arr.axes.length) throw shapeUnpackCount(arr.name, arr.axes.length, target.elts.length, s.loc);
        return target.elts.flatMap((t, i) => this.setScalar(t, { kind: 'shape', name: arr.name, axis: i, dtype: 'int64' }, s.loc));
      }
      if (value.t === 'tuple' && value.elts.length === target.elts.length) {
        const vals = value.elts.map((v) => this.term(v));
        return target.elts.flatMap((t, i) => this.bindTerm(t, vals[i], s.loc));
      }
      throw unpackNotTuple(s.loc);
    }
    return this.assignName(target, value, s.loc);
  }

  protected assignName(target: PyExpr, value: PyExpr, loc: SourceLoc): PStmt[] {
    return this.bindTerm(target, this.term(value), loc);
  }

  protected bindTerm(target: PyExpr, t: Term, loc: SourceLoc): PStmt[] {
    if (target.t !== 'name') throw programAssignsField(target.loc);
    const existing = this.scope.vars.get(target.id);
    if ('c' in t) {
      // compile-time values stay compile-time unless the name is already a runtime variable
      if (!existing || existing.k === 'value') {
        if (t.c.k === 'opaque') throw notAnAssignableValue(t.c.why, loc);
        this.scope.vars.set(target.id, { k: 'value', value: t.c });
        return [];
      }
    }
    if (existing && existing.k === 'array') throw fieldReassigned(target.id, target.loc);
    return this.setScalar(target, 'r' in t ? t.r : valueToExpr(t.c, loc), loc);
  }

  protected setScalar(target: PyExpr, value: Expr, loc: SourceLoc): PStmt[] {
    return [{ kind: 'set', name: this.scalarTarget(target, value.dtype), value, loc }];
  }

  /** The program scalar an assignment to `target` writes (declared on first assignment). */
  protected scalarTarget(target: PyExpr, dtype: DType): string {
    if (target.t !== 'name') throw programAssignsOnlyNames(target.loc);
    const existing = this.scope.vars.get(target.id);
    if (existing && existing.k === 'array') throw fieldReassigned(target.id, target.loc);
    if (existing && existing.k === 'scalar' && this.scalarVars.get(existing.name)?.role === 'arg') {
      // arguments are passed by value: shadow with a local
      this.scope.vars.delete(target.id);
    }
    return this.declareScalar(target.id, dtype);
  }

  protected temporary(target: PyExpr, call: Extract<PyExpr, { t: 'call' }>): PStmt[] {
    if (target.t !== 'name') throw temporaryNotAssignedToName(target.loc);
    this.scope.vars.set(target.id, { k: 'array', name: this.temporaryArray(call, target.id) });
    return [];
  }

  /**
   * `temporary(q)` (shape, axes and dtype of field q) or `temporary(shape=(nx, ny, nz),
   * dtype=Float)` (IJK for 3 extents, IJ for 2, K for 1): a zero-filled program array.
   */
  protected temporaryArray(call: Extract<PyExpr, { t: 'call' }>, nameHint: string): string {
    const usage = 'write temporary(q) for a field like q, or temporary(shape=(nx, ny, nz), dtype=Float)';
    const shapeKw = call.kwargs.find((k) => k.name === 'shape');
    for (const k of call.kwargs) if (k.name !== 'shape' && k.name !== 'dtype') throw temporaryUnknownParameter(k.name, k.loc, usage);
    let dtype: DType = 'float64';
    let axes: ArrayDecl['axes'];
    let shape: Expr[];
    if (call.args.length === 1 && !shapeKw) {
      const like = this.arrayOf(call.args[0]);
      if (like.dims) {
        throw temporaryLikeDataDims(like.name, like.dims.join(', '), call.loc);
      }
      dtype = like.dtype;
      axes = like.axes;
      shape = [...like.axes].map((_, i) => (like.shape ? like.shape[i] : { kind: 'shape', name: like.name, axis: i, dtype: 'int64' }));
    } else if (call.args.length === 0 && shapeKw) {
      shape = this.intTuple(shapeKw.value, 'shape');
      // temporaries are allocated when the program starts, before any local is assigned
      for (const [n, e] of shape.entries()) {
        visitExpr(e, (x) => {
          if (x.kind === 'scalar' && this.scalarVars.get(x.name)?.role !== 'arg') {
            throw temporaryShapeUnknown(shapeKw.value.t === 'tuple' ? shapeKw.value.elts[n].loc : shapeKw.value.loc);
          }
        });
      }
      const byRank: Record<number, ArrayDecl['axes']> = { 1: 'K', 2: 'IJ', 3: 'IJK' };
      if (!byRank[shape.length]) throw temporaryExtentCount(shape.length, shapeKw.value.loc, usage);
      axes = byRank[shape.length];
    } else {
      throw temporaryArguments(call.loc, usage);
    }
    const dt = call.kwargs.find((k) => k.name === 'dtype');
    if (dt) {
      const v = this.constant(dt.value, 'the dtype');
      if (v.k !== 'dtype') throw dtypeNotType(dt.value.loc);
      dtype = v.dtype;
    }
    let real = this.scope.prefix + nameHint;
    while (this.arrays.has(real) || this.scalarVars.has(real)) real = `${real}_${++this.uid}`;
    this.arrays.set(real, { name: real, dtype, axes, role: 'temporary', shape, loc: call.loc });
    return real;
  }

  protected arrayOf(e: PyExpr): ArrayDecl {
    const b = this.resolve(e);
    if (b && b.k === 'array') return this.arrays.get(b.name)!;
    if (e.t === 'name' && !b) this.name(e.id, e); // an undefined name is reported as such
    if (e.t === 'unsupported') this.term(e);
    throw expectedField(e.loc);
  }
}

function collectNames(t: PyExpr, out: Set<string>): void {
  if (t.t === 'name') out.add(t.id);
  else if (t.t === 'tuple') t.elts.forEach((x) => collectNames(x, out));
}
