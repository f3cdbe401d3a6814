import type { Axes, BinaryOp, DType, Expr, FieldDecl, IterationOrder, Offset, SourceLoc, Stmt } from '../../core/ir/types.js';
import { dottedName, type PyExpr, type PyStmt } from '../../core/python/ast.js';
import { StencilBindings } from './StencilBindings.js';
import { binary, cast } from './typeRules.js';
import type { FunctionInfo } from '../../core/frontend/values.js';
import { dataIndices, elementwise, expandRead, fitTree, isList, matmul, transpose, treeAt, vectorizeExpr, type VecTree } from './dataDims.js';
import { annotatedNameDefined, annotationNotDtype, annotationNotNewTemporary, fieldNoDataIndexForDecl, helperReturnCount, operationOnDataDimensions, scalarArgumentAssigned, temporaryAxesUnsupported, temporaryDataDimsInComputation, tupleToSingleTarget, unpackCountMismatch, unpackNotHelperCall, writtenAtOffset, writtenWithoutParallelAxes } from '../../core/diagnostics/stencilErrors.js';
import { assignTargetNotName, globalTableWritten, notAField } from '../../core/diagnostics/programErrors.js';
import { programChainedAssignment } from '../../core/diagnostics/frontendErrors.js';

const VECTOR_OPS: Record<string, BinaryOp> = { '+': '+', '-': '-', '*': '*', '/': '/', '//': '//', '%': '%', '**': '**' };

/**
 * Assignments in a stencil: to fields, to new temporaries (typed or not), tuple unpacking
 * of helper results, and GT4Py's rules on where a write may go (offsets, parallel axes).
 */
export abstract class StencilAssignments extends StencilBindings {
  /** Inlines a helper call (see `StencilLowering`). */
  protected abstract inline(fn: FunctionInfo, e: Extract<PyExpr, { t: 'call' }>): Expr | Expr[];

  protected assign(s: Extract<PyStmt, { t: 'assign' }>): Stmt[] {
    if (s.targets.length !== 1) throw programChainedAssignment(s.loc);
    const target = s.targets[0];
    if (s.annotation) return this.typedAssign(target, s.annotation, s.value, s.loc);
    if (target.t === 'tuple') {
      // a, b = helper(...)  or  a, b = x, y
      if (s.value.t === 'tuple') {
        if (s.value.elts.length !== target.elts.length) throw unpackCountMismatch(s.value.elts.length, target.elts.length, s.loc);
        const values = s.value.elts.map((v) => this.expr(v));
        return target.elts.flatMap((t, i) => this.store(t, values[i], s.loc));
      }
      const results = this.tupleCall(s.value, target.elts.length);
      return target.elts.flatMap((t, i) => this.store(t, results[i], s.loc));
    }
    return this.assignTo(target, s.value, s.loc);
  }

  protected assignTo(target: PyExpr, value: PyExpr, loc: SourceLoc): Stmt[] {
    const vector = this.vectorTarget(target);
    if (vector) return this.vectorAssign(target, vector, value, loc);
    const v = this.term(value);
    if ('c' in v && v.c.k === 'tuple') throw tupleToSingleTarget(loc);
    return this.store(target, this.toExpr(v, value), loc);
  }

  /**
   * `tmp: T = value`: a temporary declared with a type. GT4Py (at the pin) takes a dtype
   * (`float`, `np.float32`, ...) or `Field[IJ, dtype]`, a 2-D temporary shared by every
   * level; a field type with other axes, IJK included, it refuses ("Typed temporaries must
   * be IJ"), and so does orch.
   */
  protected typedAssign(target: PyExpr, annotation: PyExpr, value: PyExpr, loc: SourceLoc): Stmt[] {
    if (target.t !== 'name') {
      throw annotationNotNewTemporary(target.loc);
    }
    // GT4Py evaluates the annotation with the decorator's dtypes= names first
    const symbol = annotation.t === 'name' ? this.fn.dtypes?.[annotation.id] : undefined;
    const t = symbol ?? this.loader.eval(annotation, this.scope.module);
    let type: { dtype: DType; axes: Axes };
    if (t.k === 'dtype') type = { dtype: t.dtype, axes: 'IJK' };
    else if (t.k === 'fieldType') type = { dtype: t.dtype, axes: t.axes };
    else {
      throw annotationNotDtype(target.id, t.k === 'opaque' ? `: ${t.why}` : '', annotation.loc);
    }
    if (t.k === 'fieldType' && type.axes !== 'IJ') {
      // GT4Py 99b79b58 (gtscript_frontend.py): a Field annotation inside a computation must be IJ
      throw temporaryAxesUnsupported([...type.axes].join(', '), target.id, annotation.loc, t.dims
          ? `GT4Py declares temporaries with data dimensions at function level, before the computations, with a constant initial value: ${target.id}: Field[(dtype, (${t.dims.join(', ')}${t.dims.length === 1 ? ',' : ''}))] = 0`
          : `GT4Py takes only Field[IJ, dtype] (a 2-D temporary) as a field type here: annotate a 3-D temporary with its dtype (${target.id}: ${type.dtype === 'float64' ? 'float' : type.dtype} = ...), or pass a ${type.axes} field as an argument`);
    }
    if (t.k === 'fieldType' && t.dims) {
      throw temporaryDataDimsInComputation(target.id, t.dims.join(', '), t.dims.length, annotation.loc);
    }
    const existing = this.scope.vars.get(target.id);
    if (existing) {
      const decl = existing.k === 'field' ? this.fields.get(existing.name) : undefined;
      if (!decl || decl.role !== 'temp' || decl.dtype !== type.dtype || decl.axes !== type.axes) {
        throw annotatedNameDefined(target.id, decl ? ` as a ${decl.dtype} ${decl.axes} ${decl.role === 'api' ? 'field argument' : 'temporary'}` : '', target.loc, target.id.length);
      }
      return this.assignTo(target, value, loc);
    }
    const v = this.term(value);
    if ('c' in v && v.c.k === 'tuple') throw tupleToSingleTarget(loc);
    return this.newTemp(target.id, this.toExpr(v, value), loc, type);
  }

  /** The field a whole-field assignment writes (`v = ...`, `v[0, 0, 0] = ...` with v having data dimensions). */
  private vectorTarget(target: PyExpr): FieldDecl | null {
    const name = target.t === 'name' ? target.id : target.t === 'subscript' && target.value.t === 'name' ? target.value.id : null;
    const b = name === null ? undefined : this.lookupVar(name);
    if (b?.k !== 'field') return null;
    const decl = this.fields.get(b.name)!;
    return decl.dims ? decl : null;
  }

  /** `v = expr` for v with data dimensions: one assignment per element (GT4Py's UnrollVectorAssignments). */
  private vectorAssign(target: PyExpr, decl: FieldDecl, value: PyExpr, loc: SourceLoc): Stmt[] {
    const name = target.t === 'name' ? target.id : decl.name;
    const tree = fitTree(this.vectorValue(value), decl.dims!, name, loc);
    return dataIndices(decl.dims!).flatMap((idx) => this.store(target, treeAt(tree, idx), loc, idx));
  }

  /** Whether an expression involves whole fields with data dimensions, `@` or `.T`. */
  private mentionsVector(e: PyExpr): boolean {
    switch (e.t) {
      case 'name': {
        const b = this.lookupVar(e.id);
        return b?.k === 'field' && !!this.fields.get(b.name)!.dims;
      }
      case 'subscript':
        return e.value.t === 'name' && this.mentionsVector(e.value);
      case 'attr':
        return e.attr === 'T' || (e.attr === 'A' && this.mentionsVector(e.value));
      case 'binop':
      case 'compare':
        return e.op === '@' || this.mentionsVector(e.left) || this.mentionsVector(e.right);
      case 'unary':
        return this.mentionsVector(e.operand);
      default:
        return false;
    }
  }

  /** The value of a vector assignment as a tree of element expressions (scalars stay leaves). */
  private vectorValue(e: PyExpr): VecTree {
    // a helper's result may be a whole field or arithmetic over whole fields
    if (!this.mentionsVector(e)) return vectorizeExpr(this.expr(e), (n) => this.fields.get(n)?.dims, e.loc);
    if ((e.t === 'binop' || e.t === 'compare') && e.op === '@') return matmul(this.vectorValue(e.left), this.vectorValue(e.right), e.loc);
    if (e.t === 'attr' && e.attr === 'T') return transpose(this.vectorValue(e.value), e.loc);
    if (e.t === 'binop' && VECTOR_OPS[e.op]) return elementwise(VECTOR_OPS[e.op], this.vectorValue(e.left), this.vectorValue(e.right), e.loc);
    if (e.t === 'unary' && (e.op === '-' || e.op === '+')) {
      const neg = (t: VecTree): VecTree => (isList(t) ? t.map(neg) : e.op === '+' ? t : { kind: 'unary', op: '-', arg: t.dtype === 'bool' ? cast(t, 'int64') : t, dtype: t.dtype === 'bool' ? 'int64' : t.dtype });
      return neg(this.vectorValue(e.operand));
    }
    if (e.t === 'name' || e.t === 'subscript' || e.t === 'attr') {
      const r = this.expr(e);
      const dims = r.kind === 'field' && !r.data ? this.fields.get(r.name)?.dims : undefined;
      if (r.kind === 'field' && dims) return expandRead(r, dims, e.loc);
      return r;
    }
    throw operationOnDataDimensions(e.t === 'compare' ? `comparison '${e.op}'` : `'${'op' in e ? e.op : e.t}'`, e.loc);
  }

  protected tupleCall(e: PyExpr, n: number): Expr[] {
    if (e.t !== 'call') throw unpackNotHelperCall(e.loc);
    const f = this.term(e.func);
    if (!('c' in f) || f.c.k !== 'function') throw unpackNotHelperCall(e.loc);
    const r = this.inline(f.c.fn, e);
    if (!Array.isArray(r) || r.length !== n) {
      throw helperReturnCount(f.c.fn.name, Array.isArray(r) ? r.length : 1, n, e.loc);
    }
    return r;
  }

  /** Writes `value` to `target`; `data` names one element of a field with data dimensions. */
  protected store(target: PyExpr, value: Expr, loc: SourceLoc, data?: number[]): Stmt[] {
    let name: string;
    if (target.t === 'subscript' && target.value.t === 'attr' && target.value.attr === 'A') {
      throw globalTableWritten(dottedName(target.value) ?? 'A', target.loc);
    }
    if (target.t === 'subscript' && target.value.t === 'subscript' && target.value.value.t === 'name') {
      // v[0, 0, 0][1] = ...: one element
      const id = target.value.value.id;
      const b = this.lookupVar(id);
      if (!b || b.k !== 'field') throw notAField(id, target.loc);
      const decl = this.fields.get(b.name)!;
      const data = this.dataIndex(id, decl, target.index, target.loc);
      this.oneComputedIndex(id, data, false, target.loc);
      const consts = data.map((x) => (x.kind === 'lit' ? Number(x.value) : 0));
      const d = data.findIndex((x) => x.kind !== 'lit');
      if (d < 0) return this.store(target.value, value, loc, consts);
      // A computed index: one branch per element along it (if/elif). Outside the extent, a
      // checked read at that index reports the error, in the words of every backend.
      const check: Expr = { kind: 'field', name: b.name, offset: [...b.offset] as Offset, data, loc: target.loc, dtype: decl.dtype };
      let chain = this.store(target.value, check, loc, consts);
      for (let c = decl.dims![d] - 1; c >= 0; c--) {
        const at = consts.slice();
        at[d] = c;
        const cond = binary('==', structuredClone(data[d]), { kind: 'lit', value: c, dtype: 'int64' });
        chain = [{ kind: 'if', cond, then: this.store(target.value, structuredClone(value), loc, at), else: chain, loc }];
      }
      return chain;
    }
    if (target.t === 'name') name = target.id;
    else if (target.t === 'subscript' && target.value.t === 'name') {
      name = target.value.id;
      const b = this.lookupVar(name);
      if (!b || b.k !== 'field') throw notAField(name, target.loc);
      const decl = this.fields.get(b.name)!;
      const { offset: off, kOffset } = this.offsets(target, decl);
      if (kOffset || off.some((o) => o !== 0) || b.offset.some((o) => o !== 0)) {
        const at: Offset = [off[0] + b.offset[0], off[1] + b.offset[1], off[2] + b.offset[2]];
        // GT4Py's K offset write: a field argument, a K offset (constant or computed), a level-by-level computation
        const kWrite = at[0] === 0 && at[1] === 0 && this.order !== 'PARALLEL' && decl.role === 'api' && b.offset.every((o) => o === 0);
        if (!kWrite) {
          throw writtenAtOffset(decl.role, name, kOffset ? 'a variable K offset' : `offset [${at.join(', ')}]`, target.loc, name.length, writeOffsetHint(name, at, !!kOffset, this.order, decl.role === 'temp'));
        }
        this.checkWriteAxes(decl, target);
        return [{ kind: 'assign', target: b.name, value: cast(value, decl.dtype), loc, ...(at[2] ? { kOffset: at[2] } : {}), ...(kOffset ? { kVar: kOffset } : {}), ...this.dataOf(decl, data, target, loc) }];
      }
    } else {
      throw assignTargetNotName(target.loc);
    }
    const scope = this.scope;
    const existing = scope.vars.get(name);
    if (existing && existing.k === 'field' && existing.offset.every((o) => o === 0) && (scope.helper === null || scope.owned.has(existing.name))) {
      const decl = this.fields.get(existing.name)!;
      this.checkWriteAxes(decl, target);
      return [{ kind: 'assign', target: existing.name, value: cast(value, decl.dtype), loc, ...this.dataOf(decl, data, target, loc) }];
    }
    if (existing && existing.k === 'expr' && existing.expr.kind === 'scalar' && scope.helper === null) {
      throw scalarArgumentAssigned(name, target.loc);
    }
    // a new local, or a helper assigning to its own parameter (arguments are passed by value)
    return this.newTemp(name, value, loc);
  }

  /** `{ data }` of a write to `decl`, which has data dimensions exactly when the write names an element. */
  private dataOf(decl: FieldDecl, data: number[] | undefined, target: PyExpr, loc: SourceLoc): { data?: number[] } {
    if (!decl.dims && data) throw fieldNoDataIndexForDecl(decl.name, target.loc);
    if (decl.dims && !data) throw new Error(`frontend: a whole-field write of '${decl.name}' (${loc.line}) was not unrolled`);
    return data ? { data } : {};
  }

  protected newTemp(name: string, value: Expr, loc: SourceLoc, type: { dtype: DType; axes: Axes } = { dtype: value.dtype, axes: 'IJK' }): Stmt[] {
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
  protected checkWriteAxes(decl: FieldDecl, at: { loc: SourceLoc; length?: number } | PyExpr): void {
    const need = this.order === 'PARALLEL' ? 'IJK' : 'IJ';
    if ([...need].every((a) => decl.axes.includes(a))) return;
    const where = 't' in at ? { loc: at.loc, length: at.t === 'name' ? at.id.length : at.t === 'subscript' && at.value.t === 'name' ? at.value.id.length : undefined } : at;
    throw writtenWithoutParallelAxes(decl.role, decl.name, decl.axes, this.order, need, where);
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
      : temporary
        ? `orch writes only field arguments at a K offset, not temporaries (GT4Py accepts both): pass ${name} as a field argument, or make each level write ${name} at itself and read its source at a variable K offset (${name} = q[0, 0, lev])`
        : `write the field argument '${name}' itself at the offset`;
  }
  if (order === 'PARALLEL') return `GT4Py rejects K offset writes in PARALLEL too (the levels have no order): use computation(FORWARD) or computation(BACKWARD), or write ${name} at its own level and shift the reads`;
  const k = at[2];
  const shift = (d: number) => `[0, 0, ${-d}]`;
  const rewrite = `write the level itself and read one level ${k > 0 ? 'below' : 'above'} instead (${name}[0, 0, ${k}] = f(${name}, q) over levels L is ${name} = f(${name}${shift(k)}, q${shift(k)}) over levels L ${k > 0 ? '+' : '-'} ${Math.abs(k)})`;
  if (temporary) return `orch writes only field arguments at a K offset, not temporaries: ${rewrite}`;
  return `write the field argument '${name}' itself at the offset, or ${rewrite}`;
}

