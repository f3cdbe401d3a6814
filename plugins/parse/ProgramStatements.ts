import { fail } from '../../core/diagnostics.js';
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
        throw notSupported('an early return', 'a program', { loc: s.loc }, 'use if/else around the remaining statements');
      // eslint-disable-next-line no-fallthrough
      case 'unsupported':
        throw notSupported(s.what, 'a program', { loc: s.loc, length: s.length }, 'programs may call stencils, programs and callbacks, and use scalar arithmetic, for/while/if; see docs/programs.md');
      // eslint-disable-next-line no-fallthrough
      default:
        fail('E_UNSUPPORTED', `${/^[aeiou]/.test(s.t) ? 'an' : 'a'} ${s.t} statement is not supported in a program`, { loc: s.loc, hint: 'programs may call stencils, programs and callbacks, and use scalar arithmetic, for/while/if; see docs/programs.md' });
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

  protected assignName(target: PyExpr, value: PyExpr, loc: SourceLoc): PStmt[] {
    return this.bindTerm(target, this.term(value), loc);
  }

  protected bindTerm(target: PyExpr, t: Term, loc: SourceLoc): PStmt[] {
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

  protected setScalar(target: PyExpr, value: Expr, loc: SourceLoc): PStmt[] {
    return [{ kind: 'set', name: this.scalarTarget(target, value.dtype), value, loc }];
  }

  /** The program scalar an assignment to `target` writes (declared on first assignment). */
  protected scalarTarget(target: PyExpr, dtype: DType): string {
    if (target.t !== 'name') fail('E_ASSIGN_TARGET', 'programs can only assign to names', { loc: target.loc, hint: 'assign scalars to names' });
    const existing = this.scope.vars.get(target.id);
    if (existing && existing.k === 'array') fail('E_ASSIGN_TARGET', `'${target.id}' is a field and cannot be reassigned`, { loc: target.loc, hint: 'use a new name for the scalar' });
    if (existing && existing.k === 'scalar' && this.scalarVars.get(existing.name)?.role === 'arg') {
      // arguments are passed by value: shadow with a local
      this.scope.vars.delete(target.id);
    }
    return this.declareScalar(target.id, dtype);
  }

  protected temporary(target: PyExpr, call: Extract<PyExpr, { t: 'call' }>): PStmt[] {
    if (target.t !== 'name') fail('E_ASSIGN_TARGET', 'temporary(...) must be assigned to a name', { loc: target.loc, hint: 'write tmp = temporary(q)' });
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
    for (const k of call.kwargs) if (k.name !== 'shape' && k.name !== 'dtype') fail('E_CALL_ARGS', `temporary() has no parameter '${k.name}'`, { loc: k.loc, hint: usage });
    let dtype: DType = 'float64';
    let axes: ArrayDecl['axes'];
    let shape: Expr[];
    if (call.args.length === 1 && !shapeKw) {
      const like = this.arrayOf(call.args[0]);
      if (like.dims) {
        fail('E_TEMPORARY_SHAPE', `temporary(${like.name}): '${like.name}' has data dimensions (${like.dims.join(', ')}), which program temporaries do not have yet`, {
          loc: call.loc,
          hint: 'allocate the array in the caller and pass it to the program as an argument of the same Field[...] type',
        });
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

  protected arrayOf(e: PyExpr): ArrayDecl {
    const b = this.resolve(e);
    if (b && b.k === 'array') return this.arrays.get(b.name)!;
    if (e.t === 'name' && !b) this.name(e.id, e); // an undefined name is reported as such
    if (e.t === 'unsupported') this.term(e);
    fail('E_NOT_A_FIELD', 'expected a field', { loc: e.loc, hint: 'pass a field argument or a temporary' });
  }
}

function collectNames(t: PyExpr, out: Set<string>): void {
  if (t.t === 'name') out.add(t.id);
  else if (t.t === 'tuple') t.elts.forEach((x) => collectNames(x, out));
}
