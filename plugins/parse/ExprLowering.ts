import { didYouMean } from '../../core/diagnostics.js';
import { notSupported } from '../../core/diagnostics/codes.js';
import type { BinaryOp, BuiltinFn, DType, Expr, SourceLoc } from '../../core/ir/types.js';
import { dottedName, type PyExpr } from '../../core/python/ast.js';
import { attribute, numericBinary, truthy } from '../../core/frontend/constEval.js';
import { binary, builtinCall, cast, isFloat } from './typeRules.js';
import { rejectBuiltin } from './unsupportedBuiltins.js';
import { describeValue, type Value } from '../../core/frontend/values.js';
import { conversionTakesOne, notAValueOfKind, takesNoKeywords, wrongArgumentCount } from '../../core/diagnostics/programErrors.js';
import { attributeNotSupported, bitwiseNotSupported, cannotIndex, externalMissingAttribute, moduleNameNotEvaluated, noKnownAttribute, notAnExpressionValue, notCallable, notConstant, notKnownAtCompileTime, sliceOutsideRegion } from '../../core/diagnostics/frontendErrors.js';
import { axisKOutsideStencil, parallelAxisQueried } from '../../core/diagnostics/stencilErrors.js';

/**
 * Lowering of Python expressions to IR expressions, shared by stencils and programs.
 * A term is either a compile-time `Value` (folded on the spot) or a runtime `Expr`;
 * subclasses decide what names, subscripts and non-builtin calls mean.
 */
export type Term = { c: Value } | { r: Expr };

const BUILTIN_FNS = new Set<string>([
  'abs', 'min', 'max', 'mod', 'sqrt', 'exp', 'log', 'log10', 'pow',
  'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'arctan2',
  'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh',
  'floor', 'ceil', 'trunc', 'isnan', 'isinf', 'isfinite', 'erf', 'erfc', 'gamma', 'cbrt',
  'round', 'round_away_from_zero',
]);

const ARITY: Partial<Record<string, [number, number]>> = { min: [2, 99], max: [2, 99], pow: [2, 2], arctan2: [2, 2], mod: [2, 2] };

const PY_BIN: Record<string, BinaryOp> = {
  '+': '+', '-': '-', '*': '*', '/': '/', '//': '//', '%': '%', '**': '**',
  '<': '<', '<=': '<=', '>': '>', '>=': '>=', '==': '==', '!=': '!=',
};

export function valueToExpr(v: Value, loc: SourceLoc, what = 'value'): Expr {
  if (v.k === 'num') return { kind: 'lit', value: v.value, dtype: v.isInt ? 'int64' : 'float64' };
  if (v.k === 'bool') return { kind: 'lit', value: v.value, dtype: 'bool' };
  if (v.k === 'axis' || v.k === 'axisOffset') {
    // stencils read K as a value (StencilBindings.valueExpr); I and J never, nor any axis in a program
    if (v.axis !== 'K') {
      throw parallelAxisQueried(v.axis, loc.line, loc.col, loc);
    }
    throw axisKOutsideStencil(loc);
  }
  if (v.k === 'opaque') throw notAnExpressionValue(v.why, v.loc.line ? v.loc : loc);
  throw notAValueOfKind(describeValue(v), what, loc);
}

export abstract class ExprLowering {
  /** What is being lowered, for messages ("gtscript", "a program"). */
  protected readonly context: string = 'gtscript';
  /** Resolves a bare name: a runtime expression, or a compile-time value. */
  protected abstract name(id: string, e: PyExpr): Term;
  /** `x[...]` where x is not a compile-time value. */
  protected abstract subscript(e: Extract<PyExpr, { t: 'subscript' }>): Term;
  /** Calls of things that are not math builtins or dtype casts. */
  protected abstract userCall(callee: Value, e: Extract<PyExpr, { t: 'call' }>): Term;
  /** `x.attr` where x is not a compile-time value (e.g. `field.shape`). */
  protected attr(e: Extract<PyExpr, { t: 'attr' }>): Term {
    throw attributeNotSupported(e.attr, e.loc);
  }

  expr(e: PyExpr, what = 'value'): Expr {
    const t = this.term(e);
    return 'r' in t ? t.r : this.valueExpr(t.c, e.loc, what);
  }

  /** A compile-time value where a runtime expression is needed (stencils also read `K` here). */
  protected valueExpr(v: Value, loc: SourceLoc, what = 'value'): Expr {
    return valueToExpr(v, loc, what);
  }

  /** A term that must be known at compile time. */
  constant(e: PyExpr, what: string): Value {
    const t = this.term(e);
    if ('r' in t) throw notKnownAtCompileTime(what, e.loc);
    if (t.c.k === 'opaque') throw notConstant(what, t.c.why, e.loc);
    return t.c;
  }

  term(e: PyExpr): Term {
    switch (e.t) {
      case 'num':
        return { c: { k: 'num', value: e.value, isInt: e.isInt } };
      case 'const':
        return { c: e.value === null ? { k: 'none' } : { k: 'bool', value: e.value } };
      case 'str':
        return { c: { k: 'str', value: e.value } };
      case 'name':
        if (e.id === '...') return { c: { k: 'builtin', name: '...' } };
        return this.name(e.id, e);
      case 'attr': {
        const base = this.term(e.value);
        if ('c' in base) {
          const v = attribute(base.c, e.attr, e);
          if (v === undefined && base.c.k === 'module' && base.c.scope === null) {
            // a member of numpy/math/gtscript orch does not provide
            rejectBuiltin(e.attr, dottedName(e) ?? `${base.c.name}.${e.attr}`, e.loc);
          }
          if (v === undefined && base.c.k === 'module') {
            throw noKnownAttribute(describeValue(base.c), e.attr, e.loc);
          }
          if (v === undefined) {
            // GT4Py: GTScriptDefinitionError "Missing or invalid value for external symbol" naming the dotted name
            const dotted = dottedName(e) ?? e.attr;
            const known = base.c.k === 'namespace' ? Object.keys(base.c.attrs) : base.c.k === 'enum' ? Object.keys(base.c.members) : [];
            const guess = didYouMean(e.attr, known);
            throw externalMissingAttribute(dotted, describeValue(base.c), e.attr, e.loc, guess ? `did you mean '${guess}'?` : `check the name of the attribute, or give '${dotted.split('.')[0]}' one named '${e.attr}'`);
          }
          if (v.k === 'opaque') throw moduleNameNotEvaluated(v.why, e.loc);
          return { c: v };
        }
        return this.attr(e);
      }
      case 'subscript': {
        const base = this.term(e.value);
        if ('c' in base && base.c.k !== 'opaque' && base.c.k !== 'tuple' && base.c.k !== 'generic' && base.c.k !== 'axis' && base.c.k !== 'builtin') {
          throw cannotIndex(describeValue(base.c), e.loc);
        }
        if ('c' in base && (base.c.k === 'tuple' || base.c.k === 'axis' || base.c.k === 'generic')) {
          const idx = e.index.map((x) => this.constant(x, 'an index'));
          if (base.c.k === 'tuple' && idx.length === 1 && idx[0].k === 'num') {
            const items = base.c.items;
            const i = idx[0].value < 0 ? items.length + idx[0].value : idx[0].value;
            return { c: items[i] };
          }
          if (base.c.k === 'axis' && idx.length === 1 && idx[0].k === 'num') return { c: { k: 'axisIndex', axis: base.c.axis, index: idx[0].value, offset: 0 } };
        }
        return this.subscript(e);
      }
      case 'unary': {
        const a = this.term(e.operand);
        if ('c' in a) {
          const v = a.c;
          if (e.op === 'not') {
            const tv = truthy(v);
            if (tv !== undefined) return { c: { k: 'bool', value: !tv } };
          } else if (v.k === 'num') return { c: { k: 'num', value: e.op === '-' ? -v.value : v.value, isInt: v.isInt } };
          else if (v.k === 'bool') return { c: { k: 'num', value: e.op === '-' ? -Number(v.value) : Number(v.value), isInt: true } };
        }
        const x = 'r' in a ? a.r : this.valueExpr(a.c, e.loc);
        if (e.op === 'not') return { r: { kind: 'unary', op: 'not', arg: cast(x, 'bool'), dtype: 'bool' } };
        if (e.op === '~') throw bitwiseNotSupported(e.loc);
        const arg = x.dtype === 'bool' ? cast(x, 'int64') : x;
        return { r: { kind: 'unary', op: e.op, arg, dtype: arg.dtype } };
      }
      case 'binop':
      case 'compare': {
        const op = PY_BIN[e.op];
        if (!op) {
          throw notSupported(
            `operator '${e.op}'`,
            this.context,
            { loc: e.loc },
            e.op === 'in' || e.op === 'not in' || e.op === 'is' || e.op === 'is not' ? 'compare values with == or !=' : "use arithmetic (+ - * / // % **) and comparisons; for logic use 'and', 'or', 'not'",
          );
        }
        const l = this.term(e.left);
        const r = this.term(e.right);
        if ('c' in l && 'c' in r) {
          const v = numericBinary(op, l.c, r.c, e);
          if (v) return { c: v };
        }
        return { r: binary(op, this.toExpr(l, e.left), this.toExpr(r, e.right)) };
      }
      case 'boolop': {
        const l = this.term(e.left);
        if ('c' in l) {
          const tl = truthy(l.c);
          if (tl !== undefined) {
            // Python short-circuit on a compile-time operand
            if (e.op === 'and' ? !tl : tl) return { c: { k: 'bool', value: tl } };
            const r = this.term(e.right);
            if ('c' in r && truthy(r.c) !== undefined) return { c: { k: 'bool', value: truthy(r.c)! } };
            return { r: cast(this.toExpr(r, e.right), 'bool') };
          }
        }
        return { r: binary(e.op, this.toExpr(l, e.left), this.expr(e.right)) };
      }
      case 'ifexp': {
        const c = this.term(e.test);
        if ('c' in c && truthy(c.c) !== undefined) return this.term(truthy(c.c) ? e.body : e.orelse);
        const cond = cast(this.toExpr(c, e.test), 'bool');
        const a = this.expr(e.body);
        const b = this.expr(e.orelse);
        const t = binary('+', a, b).dtype;
        const dtype: DType = a.dtype === 'bool' && b.dtype === 'bool' ? 'bool' : t;
        return { r: { kind: 'ternary', cond, then: cast(a, dtype), else: cast(b, dtype), dtype } };
      }
      case 'call':
        return this.call(e);
      case 'tuple':
        return { c: { k: 'tuple', items: e.elts.map((x) => this.constant(x, 'a tuple element')) } };
      case 'unsupported':
        throw notSupported(e.what, this.context, { loc: e.loc, length: e.length }, unsupportedHint(e.what));
      // eslint-disable-next-line no-fallthrough
      case 'list':
        throw notSupported('list', 'gtscript', { loc: e.loc, length: e.length }, unsupportedHint('list'));
      // eslint-disable-next-line no-fallthrough
      case 'dict':
        throw notSupported('dict', this.context, { loc: e.loc }, unsupportedHint('dict'));
      // eslint-disable-next-line no-fallthrough
      case 'slice':
        throw sliceOutsideRegion(e.loc);
    }
  }

  protected toExpr(t: Term, e: PyExpr): Expr {
    return 'r' in t ? t.r : this.valueExpr(t.c, e.loc);
  }

  protected call(e: Extract<PyExpr, { t: 'call' }>): Term {
    const f = this.term(e.func);
    if ('r' in f) throw notCallable(e.func.loc);
    const callee = f.c;
    if (callee.k === 'dtype') {
      if (e.args.length !== 1 || e.kwargs.length) throw conversionTakesOne(callee.dtype, e.loc);
      const a = this.term(e.args[0]);
      if ('c' in a && (a.c.k === 'num' || a.c.k === 'bool')) {
        const n = a.c.k === 'num' ? a.c.value : Number(a.c.value);
        if (callee.dtype === 'bool') return { c: { k: 'bool', value: n !== 0 } };
        return { c: { k: 'num', value: isFloat(callee.dtype) ? n : Math.trunc(n), isInt: !isFloat(callee.dtype) } };
      }
      return { r: cast(this.toExpr(a, e.args[0]), callee.dtype) };
    }
    if (callee.k === 'builtin' && BUILTIN_FNS.has(callee.name)) {
      if (e.kwargs.length) throw takesNoKeywords(callee.name, e.kwargs[0].loc);
      const [lo, hi] = ARITY[callee.name] ?? [1, 1];
      if (e.args.length < lo || e.args.length > hi) {
        throw wrongArgumentCount(callee.name, lo === hi ? lo : `${lo} or more`, lo, hi, e.args.length, e.loc);
      }
      const args = e.args.map((a) => this.expr(a));
      if ((callee.name === 'min' || callee.name === 'max') && args.length > 2) {
        return { r: args.slice(1).reduce((acc, x) => builtinCall(callee.name as BuiltinFn, [acc, x]), args[0]) };
      }
      return { r: builtinCall(callee.name as BuiltinFn, args) };
    }
    return this.userCall(callee, e);
  }
}

export function unsupportedHint(what: string): string {
  switch (what) {
    case 'list':
    case 'dict':
    case 'set':
    case 'comprehension':
      return 'gtscript has no containers: use fields, temporaries or scalar variables';
    case 'lambda':
      return 'define a @gtscript.function helper instead';
    case 'f-string':
      return 'strings cannot be used in stencils';
    case 'try/except':
      return 'remove the try/except; errors are checked at compile time';
    default:
      return 'see docs/language.md for what gtscript supports';
  }
}
