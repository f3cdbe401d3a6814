import type { BinaryOp, Expr, FieldDecl, SourceLoc, StencilDef, Stmt } from '../../core/ir/types.js';
import { mapStmts, visitExpr } from '../../core/ir/visit.js';
import { binary } from './typeRules.js';
import { assignedDataDimsMismatch, dataDimsWithoutIndex, matmulOperands, operandDataDimsMismatch, operatorOnDataDims, readWithoutDataIndex, transposeNotMatrix } from '../../core/diagnostics/stencilErrors.js';

/**
 * Data dimensions in the stencil frontend, as GT4Py's `UnrollVectorAssignments` and
 * `UnrollVectorExpressions` (frontend/defir_to_gtir.py at the pin) define them: a field
 * named without a data index in an assignment to a field with data dimensions stands for
 * all its elements, arithmetic applies element by element (a scalar is broadcast), `M @ v`
 * is a matrix-vector product summed left to right, `M.T` a transpose; the assignment
 * becomes one assignment per element.
 */

/** A value of a vector assignment: one expression, or a nested list per data dimension. */
export type VecTree = Expr | VecTree[];

export function isList(t: VecTree): t is VecTree[] {
  return Array.isArray(t);
}

/** Extents of a tree (`[]` for a scalar). */
export function treeDims(t: VecTree): number[] {
  return isList(t) ? [t.length, ...treeDims(t[0])] : [];
}

/** Every element of `dims`, in row-major order. */
export function dataIndices(dims: readonly number[]): number[][] {
  let out: number[][] = [[]];
  for (const n of dims) out = out.flatMap((idx) => Array.from({ length: n }, (_, x) => [...idx, x]));
  return out;
}

/** The int64 literal of a constant data index. */
export function dataLit(x: number): Expr {
  return { kind: 'lit', value: x, dtype: 'int64' };
}

/** The elements of a whole-field read, as a tree (GT4Py unrolls vectors and matrices only). */
export function expandRead(e: Extract<Expr, { kind: 'field' }>, dims: readonly number[], loc: SourceLoc): VecTree {
  if (dims.length > 2) {
    throw dataDimsWithoutIndex(e.name, dims.length, dims.map(() => '0').join(', '), loc, e.name.length);
  }
  const build = (prefix: number[], rest: readonly number[]): VecTree =>
    rest.length === 0 ? { ...e, data: prefix.map(dataLit) } : Array.from({ length: rest[0] }, (_, x) => build([...prefix, x], rest.slice(1)));
  return build([], dims);
}

/** `op` element by element; a scalar side is broadcast (GT4Py: vector-vector, scalar-vector). */
export function elementwise(op: BinaryOp, l: VecTree, r: VecTree, loc: SourceLoc): VecTree {
  if (!isList(l) && !isList(r)) return binary(op, structuredClone(l), structuredClone(r));
  if (isList(l) && isList(r)) {
    if (l.length !== r.length) {
      throw operandDataDimsMismatch(op, treeDims(l).join(', '), treeDims(r).join(', '), loc);
    }
    return l.map((x, n) => elementwise(op, x, r[n], loc));
  }
  return isList(l) ? l.map((x) => elementwise(op, x, r, loc)) : (r as VecTree[]).map((x) => elementwise(op, l, x, loc));
}

/** `M @ v`: row j is M[j][0] * v[0] + M[j][1] * v[1] + ..., summed left to right as GT4Py does. */
export function matmul(m: VecTree, v: VecTree, loc: SourceLoc): VecTree {
  const md = treeDims(m);
  const vd = treeDims(v);
  if (md.length !== 2 || vd.length !== 1 || md[1] !== vd[0]) {
    throw matmulOperands(md.join(', '), vd.join(', '), loc);
  }
  return (m as Expr[][]).map((row) =>
    row.slice(1).reduce<Expr>((acc, x, i) => binary('+', acc, binary('*', structuredClone(x), structuredClone((v as Expr[])[i + 1]))), binary('*', structuredClone(row[0]), structuredClone((v as Expr[])[0]))),
  );
}

export function transpose(m: VecTree, loc: SourceLoc): VecTree {
  const d = treeDims(m);
  if (d.length !== 2) throw transposeNotMatrix(d.join(', '), loc);
  const rows = m as Expr[][];
  return Array.from({ length: d[1] }, (_, c) => rows.map((row) => row[c]));
}

/**
 * A lowered expression over whole fields (as a helper returns it: `return 2 * v`) as a tree:
 * GT4Py unrolls after inlining, so arithmetic, negation and casts apply element by element.
 */
export function vectorizeExpr(e: Expr, dimsOf: (name: string) => number[] | undefined, loc: SourceLoc): VecTree {
  const dims = e.kind === 'field' && !e.data ? dimsOf(e.name) : undefined;
  if (e.kind === 'field' && dims) return expandRead(e, dims, loc);
  const map = (t: VecTree, f: (x: Expr) => Expr): VecTree => (isList(t) ? t.map((x) => map(x, f)) : f(t));
  switch (e.kind) {
    case 'binary': {
      const l = vectorizeExpr(e.left, dimsOf, loc);
      const r = vectorizeExpr(e.right, dimsOf, loc);
      if (!isList(l) && !isList(r)) return e;
      if (BOOL_RESULT.has(e.op)) {
        throw operatorOnDataDims(e.op, loc);
      }
      return elementwise(e.op, l, r, loc);
    }
    case 'unary': {
      const a = vectorizeExpr(e.arg, dimsOf, loc);
      return isList(a) ? map(a, (x) => ({ ...e, arg: x })) : e;
    }
    case 'cast': {
      const a = vectorizeExpr(e.arg, dimsOf, loc);
      return isList(a) ? map(a, (x) => ({ ...e, arg: x })) : e;
    }
    default:
      return e;
  }
}

const BOOL_RESULT = new Set(['<', '<=', '>', '>=', '==', '!=', 'and', 'or']);

/** The tree broadcast to `dims`: a scalar fills every element; a tree must have exactly `dims`. */
export function fitTree(t: VecTree, dims: readonly number[], target: string, loc: SourceLoc): VecTree {
  if (!isList(t)) {
    const fill = (rest: readonly number[]): VecTree => (rest.length ? Array.from({ length: rest[0] }, () => fill(rest.slice(1))) : structuredClone(t));
    return fill(dims);
  }
  const have = treeDims(t);
  if (have.join() !== dims.join()) {
    throw assignedDataDimsMismatch(target, dims.join(', '), have.join(', '), loc);
  }
  return t;
}

/** The element of a tree at a data index. */
export function treeAt(t: VecTree, idx: readonly number[]): Expr {
  return idx.reduce<VecTree>((acc, x) => (acc as VecTree[])[x], t) as Expr;
}

/**
 * GT4Py's `DataDimensionsChecker`: every read of a field with data dimensions indexes all of
 * them once the assignments are unrolled.
 */
export function checkDataIndexed(e: Expr, fields: ReadonlyMap<string, FieldDecl>, locOf: (e: Expr) => SourceLoc | undefined, at: SourceLoc): void {
  visitExpr(e, (x) => {
    if (x.kind !== 'field') return;
    const dims = fields.get(x.name)?.dims;
    if (!dims || x.data) return;
    const zeros = dims.map(() => 'x').join(', ');
    throw readWithoutDataIndex(x.name, dims.join(', '), zeros, locOf(x) ?? at, x.name.length);
  });
}

/**
 * Temporaries with data dimensions become one plain temporary per element (`tmp__1_0`), so
 * every pass after the frontend sees ordinary temporaries; their data indices are constants
 * (the frontend refuses computed ones into a temporary).
 */
export function splitDataDimTemporaries(def: StencilDef): StencilDef {
  const split = new Map<string, FieldDecl>();
  for (const f of def.fields) if (f.role === 'temp' && f.dims) split.set(f.name, f);
  if (!split.size) return def;
  const taken = new Set(def.fields.map((f) => f.name));
  const part = new Map<string, string>();
  const element = (name: string, idx: readonly number[]): string => {
    const key = `${name}[${idx.join(',')}]`;
    let real = part.get(key);
    if (!real) {
      real = `${name}__${idx.join('_')}`;
      while (taken.has(real)) real = `_${real}`;
      taken.add(real);
      part.set(key, real);
    }
    return real;
  };
  const fields: FieldDecl[] = [];
  for (const f of def.fields) {
    if (!split.has(f.name)) fields.push(f);
    else for (const idx of dataIndices(f.dims!)) fields.push({ name: element(f.name, idx), dtype: f.dtype, axes: f.axes, role: 'temp' });
  }
  const constIdx = (data: readonly Expr[]) => data.map((d) => Number((d as { value: number }).value));
  const mapExprFn = (x: Expr): Expr => (x.kind === 'field' && split.has(x.name) ? { ...x, name: element(x.name, constIdx(x.data!)), data: undefined } : x);
  const clean = (x: Expr): Expr => {
    if (x.kind === 'field' && x.data === undefined) delete (x as { data?: unknown }).data;
    return x;
  };
  const rewrite = (list: Stmt[]): Stmt[] =>
    mapStmts(list, (x) => clean(mapExprFn(x))).map((s) => {
      if ((s.kind === 'assign' || s.kind === 'check') && split.has(s.target)) {
        const { data, ...rest } = s;
        return { ...rest, target: element(s.target, data!) } as Stmt;
      }
      return s;
    });
  const deep = (list: Stmt[]): Stmt[] =>
    rewrite(list).map((s) => {
      if (s.kind === 'if') return { ...s, then: deep(s.then), else: deep(s.else) };
      if (s.kind === 'while' || s.kind === 'region') return { ...s, body: deep(s.body) };
      return s;
    });
  return {
    ...def,
    fields,
    computations: def.computations.map((c) => ({ ...c, intervals: c.intervals.map((iv) => ({ ...iv, body: deep(iv.body) })) })),
  };
}
