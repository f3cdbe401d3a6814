import { axisIndices, flatDataIndex, type AxisBound, type DType, type Expr, type HorizontalRegion, type Offset, type SourceLoc } from '../../core/ir/types.js';
import { DATA_INDEX_HINT, locatedErrorHint, locatedErrorPrefix, VARIABLE_K_HINT } from '../../core/runtime/locatedError.js';

/** A constant data index (a literal, or a number already). */
function constIndex(x: Expr | number): number {
  if (typeof x === 'number') return x;
  if (x.kind !== 'lit') throw new Error('a computed data index where a constant one is expected');
  return Number(x.value);
}
import type { Codegen, PointContext } from './Codegen.js';
import { CTYPE, commonType, convert, cString, floatLiteral, intLiteral, isFloat, isInt } from './cText.js';

const MATH_FN: Record<string, string> = {
  sqrt: 'sqrt', exp: 'exp', log: 'log', log10: 'log10',
  sin: 'sin', cos: 'cos', tan: 'tan', arcsin: 'asin', arccos: 'acos', arctan: 'atan',
  sinh: 'sinh', cosh: 'cosh', tanh: 'tanh', arcsinh: 'asinh', arccosh: 'acosh', arctanh: 'atanh',
  floor: 'floor', ceil: 'ceil', trunc: 'trunc', erf: 'erf', erfc: 'erfc', gamma: 'tgamma', cbrt: 'cbrt',
  // numpy's round: halfway cases to even, as nearbyint in the default rounding mode
  round: 'nearbyint',
};

/**
 * What a checked read at a variable K offset needs: the column's base pointer, the K
 * stride, the K index (relative to the origin), the array's K limits, and its error
 * message around the numbers (`head` and `tail`, C strings, as the interpreter words it).
 */
export interface VariableKParts {
  base: string;
  stride: string;
  idx: string;
  lo: string;
  hi: string;
  head: string;
  tail: string;
  /** What `hi - lo` counts in the message: levels (K, the default) or entries (a data dimension). */
  unit?: 'levels' | 'entries';
}

/**
 * Expressions: every result is a parenthesized C++ expression of the node's dtype, with
 * Python/numpy semantics from orch_runtime.h. Array elements are addressed through the
 * pointers and strides the current launch hoisted (the same names on host and device).
 */
export class ExprEmitter {
  constructor(private readonly cg: Codegen) {}

  cond(e: Expr, ctx: PointContext | undefined): string {
    return convert(this.expr(e, ctx), e.dtype, 'bool');
  }

  expr(e: Expr, ctx: PointContext | undefined): string {
    const sub = (x: Expr, to: DType): string => convert(this.expr(x, ctx), x.dtype, to);
    switch (e.kind) {
      case 'lit': {
        if (e.dtype === 'bool') return (typeof e.value === 'boolean' ? e.value : e.value !== 0) ? 'true' : 'false';
        const v = typeof e.value === 'boolean' ? Number(e.value) : e.value;
        return isFloat(e.dtype) ? floatLiteral(v, e.dtype) : intLiteral(v, e.dtype);
      }
      case 'scalar': {
        const local = ctx?.locals.get(e.name);
        if (local) return convert(this.cg.ids.local(e.name), local, e.dtype);
        const v = this.cg.scalars.get(e.name);
        if (!v) throw new Error(`reference to unknown scalar '${e.name}'`);
        return convert(this.cg.regionScalars.ref(v.name), v.dtype, e.dtype);
      }
      case 'field': {
        const a = this.cg.array(e.name);
        const computed = (e.data ?? []).findIndex((d) => d.kind !== 'lit');
        const ref = e.kOffset
          ? this.cg.loops.variableKRead(this.variableKParts(e.name, e.offset, e.kOffset, e.loc ?? this.cg.stmtLoc, ctx, e.data))
          : computed >= 0
            ? this.cg.loops.variableKRead(this.dataIndexParts(e.name, e.offset, e.data!, computed, e.loc ?? this.cg.stmtLoc, ctx))
            : this.fieldRef(e.name, e.offset, ctx, e.data);
        return convert(a.dtype === 'bool' ? `(${ref} != 0)` : ref, a.dtype, e.dtype);
      }
      case 'shape': {
        const a = this.cg.array(e.name);
        if (!Number.isInteger(e.axis) || e.axis < 0 || e.axis >= a.axes.length) {
          throw new Error(`shape of '${e.name}' along axis ${e.axis}, which it does not have`);
        }
        return convert(`${this.cg.ids.view(e.name)}.shape[${e.axis}]`, 'int64', e.dtype);
      }
      case 'kindex':
        // every loop nest (CPU and CUDA) counts k from the domain's first level, as GT4Py's K does
        if (!ctx) throw new Error('the K index is read outside a loop nest');
        return convert('static_cast<int64_t>(k)', 'int64', e.dtype);
      case 'cast':
        return sub(e.arg, e.dtype);
      case 'unary': {
        if (e.op === 'not') return `(!${sub(e.arg, 'bool')})`;
        const x = sub(e.arg, e.dtype);
        if (e.op === '+') return x;
        return isInt(e.dtype) ? `orch::ineg<${CTYPE[e.dtype]}>(${x})` : `(-${x})`;
      }
      case 'ternary':
        return `(${sub(e.cond, 'bool')} ? ${sub(e.then, e.dtype)} : ${sub(e.else, e.dtype)})`;
      case 'binary':
        return this.binary(e.op, e.left, e.right, e.dtype, ctx);
      case 'call':
        return this.call(e, ctx);
    }
  }

  private binary(op: string, left: Expr, right: Expr, dtype: DType, ctx: PointContext | undefined): string {
    const T = CTYPE[dtype];
    const both = (to: DType): [string, string] => [
      convert(this.expr(left, ctx), left.dtype, to),
      convert(this.expr(right, ctx), right.dtype, to),
    ];
    switch (op) {
      case '+':
      case '-':
      case '*': {
        const [l, r] = both(dtype);
        if (isInt(dtype)) return `orch::${{ '+': 'iadd', '-': 'isub', '*': 'imul' }[op]}<${T}>(${l}, ${r})`;
        if (isFloat(dtype)) return `(${l} ${op} ${r})`;
        break;
      }
      case '/': {
        const [l, r] = both(dtype);
        if (isFloat(dtype)) return `(${l} / ${r})`;
        break;
      }
      case '//': {
        const [l, r] = both(dtype);
        if (isInt(dtype)) return `orch::floordiv<${T}>(${l}, ${r})`;
        if (isFloat(dtype)) return `std::floor(${l} / ${r})`;
        break;
      }
      case '%': {
        const [l, r] = both(dtype);
        if (isInt(dtype)) return `orch::imod<${T}>(${l}, ${r})`;
        if (isFloat(dtype)) return `orch::fmod_py<${T}>(${l}, ${r})`;
        break;
      }
      case '**':
        return this.power(left, right, dtype, ctx);
      case '<':
      case '<=':
      case '>':
      case '>=':
      case '==':
      case '!=': {
        const [l, r] = both(commonType(left.dtype, right.dtype));
        return convert(`(${l} ${op} ${r})`, 'bool', dtype);
      }
      case 'and':
      case 'or': {
        const [l, r] = both('bool');
        return convert(`(${l} ${op === 'and' ? '&&' : '||'} ${r})`, 'bool', dtype);
      }
    }
    throw new Error(`operator '${op}' is not defined for ${dtype}`);
  }

  /** `**` / pow: floats via double pow (as the interpreter does), ints by repeated squaring. */
  private power(left: Expr, right: Expr, dtype: DType, ctx: PointContext | undefined): string {
    const common = commonType(left.dtype, right.dtype);
    const c = common === 'bool' ? 'int64' : common;
    const l = convert(this.expr(left, ctx), left.dtype, isFloat(c) ? 'float64' : c);
    const r = convert(this.expr(right, ctx), right.dtype, isFloat(c) ? 'float64' : c);
    if (isFloat(c)) return convert(`std::pow(${l}, ${r})`, 'float64', dtype);
    return convert(`orch::ipow<${CTYPE[c]}>(${l}, ${r})`, c, dtype);
  }

  private call(e: Extract<Expr, { kind: 'call' }>, ctx: PointContext | undefined): string {
    const arity = e.fn === 'min' || e.fn === 'max' || e.fn === 'mod' || e.fn === 'pow' || e.fn === 'arctan2' ? 2 : 1;
    if (e.args.length !== arity) throw new Error(`${e.fn}() takes ${arity} argument(s), got ${e.args.length}`);
    const [a, b] = e.args;
    const T = CTYPE[e.dtype];
    const arg = (x: Expr, to: DType): string => convert(this.expr(x, ctx), x.dtype, to);
    switch (e.fn) {
      case 'abs':
        if (isInt(e.dtype)) return `orch::iabs<${T}>(${arg(a, e.dtype)})`;
        if (isFloat(e.dtype)) return `std::fabs(${arg(a, e.dtype)})`;
        break;
      case 'min':
      case 'max':
        return `orch::${e.fn}<${T}>(${arg(a, e.dtype)}, ${arg(b, e.dtype)})`;
      case 'mod':
        return this.binary('%', a, b, e.dtype, ctx);
      case 'pow':
        return this.power(a, b, e.dtype, ctx);
      case 'arctan2':
        return convert(`std::atan2(${arg(a, 'float64')}, ${arg(b, 'float64')})`, 'float64', e.dtype);
      case 'isnan':
      case 'isinf':
      case 'isfinite':
        return convert(`std::${e.fn}(${arg(a, 'float64')})`, 'bool', e.dtype);
      case 'round_away_from_zero': {
        // GT4Py's numpy definition, copysign(floor(|x| + 0.5), x), not std::round: they differ at 0.49999999999999994
        const x = arg(a, 'float64');
        return convert(`std::copysign(std::floor(std::fabs(${x}) + 0.5), ${x})`, 'float64', e.dtype);
      }
      default: {
        // float32 math is done in double and rounded once, like the interpreter (JS has
        // only double math), so both backends agree to the libm's last bit.
        const fn = MATH_FN[e.fn];
        if (fn) return convert(`std::${fn}(${arg(a, 'float64')})`, 'float64', e.dtype);
      }
    }
    throw new Error(`builtin ${e.fn}() is not defined for ${e.dtype}`);
  }

  /**
   * `p_x[...]` for array `name` at `offset` from the current point (i, j, k), at constant
   * data index `data` (the data dimensions are contiguous after the spatial ones, which the
   * hosts check, so an element is the point's index plus its row-major data offset).
   */
  fieldRef(name: string, offset: Offset, ctx: PointContext | undefined, data?: readonly (Expr | number)[]): string {
    const decl = ctx?.hoisted.get(name);
    if (!decl) throw new Error(`array '${name}' is accessed outside a launch that addresses it`);
    const buffer = ctx?.streamed?.get(name);
    if (buffer !== undefined) {
      if (offset.some((o) => o !== 0) || data?.length) throw new Error(`streamed output '${name}' is accessed off its point`);
      return `${buffer}[k - klo]`;
    }
    const terms = axisIndices(decl.axes).map((a, pos) => {
      const v = 'ijk'[a];
      const o = offset[a];
      const index = o === 0 ? v : o > 0 ? `(${v} + ${o})` : `(${v} - ${-o})`;
      const roll = ctx?.rolled?.get(name);
      return `${roll && roll.axis === a ? `(${index} & ${roll.mask})` : index} * ${this.cg.ids.stride(name, pos)}`;
    });
    const flat = data?.length ? flatDataIndex(this.cg.array(name).dims ?? [], data.map(constIndex)) : 0;
    if (flat) terms.push(String(flat));
    return `${this.cg.ids.ptr(name)}[${terms.join(' + ') || '0'}]`;
  }

  /**
   * A read at a data index computed at run time (dimension `d`; the others constant): a
   * checked read like a variable K offset's, walking dimension d from the element whose
   * index along d is 0.
   */
  private dataIndexParts(name: string, offset: Offset, data: readonly Expr[], d: number, loc: SourceLoc | undefined, ctx: PointContext | undefined): VariableKParts {
    const dims = this.cg.array(name).dims ?? [];
    if (data.some((x, n) => n !== d && x.kind !== 'lit')) throw new Error(`'${name}' is read at more than one computed data index`);
    const ref = this.fieldRef(name, offset, ctx, data.map((x, n) => (n === d ? 0 : x)));
    const located = loc ? locatedErrorPrefix('E_OUT_OF_BOUNDS', loc) : '';
    // same diagnostic as the interpreter's check (core/interpreter/Interpreter.ts, index)
    const head = cString(`${located}stencil '${this.cg.launchName}': field '${name}' is indexed along data dimension ${d} at index `);
    return {
      base: `&${ref}`,
      stride: String(dims.slice(d + 1).reduce((a, b) => a * b, 1)),
      idx: convert(this.expr(data[d], ctx), data[d].dtype, 'int64'),
      lo: '0',
      hi: String(dims[d]),
      head,
      tail: cString(locatedErrorHint(DATA_INDEX_HINT)),
      unit: 'entries',
    };
  }

  variableKParts(name: string, offset: Offset, kOffset: Expr, loc: SourceLoc | undefined, ctx: PointContext | undefined, data?: readonly Expr[], verb: 'read' | 'written' = 'read'): VariableKParts {
    if (data?.some((x) => x.kind !== 'lit')) throw new Error(`'${name}' is read at a variable K offset and a computed data index`);
    const flat = data?.length ? flatDataIndex(this.cg.array(name).dims ?? [], data.map(constIndex)) : 0;
    const decl = ctx?.hoisted.get(name);
    if (!decl) throw new Error(`array '${name}' is accessed outside a launch that addresses it`);
    const letters = axisIndices(decl.axes);
    const kpos = letters.indexOf(2);
    if (kpos < 0) throw new Error(`array '${name}' (${decl.axes}) is read at a variable K offset but has no K axis`);
    const terms = letters.flatMap((a, pos) => {
      if (a === 2) return [];
      const v = 'ij'[a];
      const o = offset[a];
      return [`${o === 0 ? v : o > 0 ? `(${v} + ${o})` : `(${v} - ${-o})`} * ${this.cg.ids.stride(name, pos)}`];
    });
    if (flat) terms.push(String(flat));
    const base = terms.length ? `${this.cg.ids.ptr(name)} + ${terms.join(' + ')}` : this.cg.ids.ptr(name);
    const dk = convert(this.expr(kOffset, ctx), kOffset.dtype, 'int64');
    const idx = offset[2] === 0 ? `k + ${dk}` : `k + ${offset[2]} + ${dk}`;
    // same diagnostic as the interpreter's check (core/interpreter/Interpreter.ts, index)
    const located = loc ? locatedErrorPrefix('E_OUT_OF_BOUNDS', loc) : '';
    const head = cString(`${located}stencil '${this.cg.launchName}': field '${name}' is ${verb} at a variable K offset at K index `);
    const tail = cString(locatedErrorHint(VARIABLE_K_HINT));
    return { base, stride: this.cg.ids.stride(name, kpos), idx, lo: this.cg.ids.kLimit(name, 'lo'), hi: this.cg.ids.kLimit(name, 'hi'), head, tail };
  }
}

/** The condition of a horizontal region: `i` and `j` within one of the boxes, relative to the domain. */
export function regionCondition(regions: readonly HorizontalRegion[]): string {
  const axisCond = (v: 'i' | 'j', dom: string, start: AxisBound | null, end: AxisBound | null): string[] => {
    const bound = (b: AxisBound): string => regionBound(b, dom);
    const parts: string[] = [];
    if (start) parts.push(`${v} >= ${bound(start)}`);
    if (end) parts.push(`${v} < ${bound(end)}`);
    return parts;
  };
  const boxes = regions.map((r) => {
    const parts = [...axisCond('i', 'dom0', r.i.start, r.i.end), ...axisCond('j', 'dom1', r.j.start, r.j.end)];
    return parts.length ? `(${parts.join(' && ')})` : 'true';
  });
  return boxes.length ? boxes.join(' || ') : 'false';
}

/** A region's bound on one axis as a C index, relative to the domain (`dom`: its extent there). */
export function regionBound(b: AxisBound, dom: string): string {
  const o = Math.trunc(b.offset);
  if (b.level === 'start') return o < 0 ? `(${o}LL)` : `${o}LL`;
  return o === 0 ? dom : o > 0 ? `(${dom} + ${o})` : `(${dom} - ${-o})`;
}
