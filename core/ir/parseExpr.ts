import { DTYPES as ALL_DTYPES, isIntDType } from './dtypes.js';
import type { Tokens } from './lex.js';
import { BUILTIN_FNS, type BinaryOp, type BuiltinFn, type DType, type Expr } from './types.js';

/**
 * Expressions of the IR's text form, back into typed `Expr`s.
 *
 * The text leaves most dtypes implicit: names take theirs from the declarations in
 * scope, and an integer literal (`3`) is int32 or int64. Since the frontend casts the
 * operands of every op to one dtype (the verifier holds passes to it), an integer literal
 * takes the dtype of its sibling operand, or of what it is assigned to; alone it is int64.
 */

export interface ExprScope {
  /** dtype of a field or array readable here */
  field(name: string): DType | undefined;
  /** dtype of a scalar readable here (parameters, program scalars, point locals) */
  scalar(name: string): DType | undefined;
}

const DTYPES = new Set<string>(ALL_DTYPES);
const BUILTINS = new Set<string>(BUILTIN_FNS);
const BOOL_RESULT = new Set<string>(['isnan', 'isinf', 'isfinite']);
const KEEP_TYPE = new Set<string>(['abs', 'min', 'max', 'mod']);
const BINARY = new Set<string>(['+', '-', '*', '/', '//', '%', '**', '<', '<=', '>', '>=', '==', '!=', 'and', 'or']);
const BOOL_OPS = new Set<string>(['<', '<=', '>', '>=', '==', '!=', 'and', 'or']);

export class ExprParser {
  /** Expressions built only from integer literals, whose dtype the context decides. */
  private readonly flexible = new WeakSet<Expr>();

  constructor(private readonly t: Tokens) {}

  /** An expression, settled to `want` where its dtype is still open. */
  parse(scope: ExprScope, want?: DType): Expr {
    const e = this.expr(scope);
    if (want) this.settle(e, want);
    return e;
  }

  private expr(scope: ExprScope): Expr {
    const t: Tokens = this.t;
    if (t.is('(')) {
      t.next();
      if (t.is('not')) {
        t.next();
        const arg = this.expr(scope);
        t.expect(')');
        return { kind: 'unary', op: 'not', arg, dtype: 'bool' };
      }
      if (t.is('+') || (t.is('-') && !(t.peek(1).kind === 'number' && !t.peek(1).spaced && t.peek(2).text !== ')'))) {
        // `(-x)`, `(+x)`; `(-1 + x)` is a binary op on the literal -1
        const op = t.next().text as '-' | '+';
        const arg = this.expr(scope);
        t.expect(')');
        return this.mark({ kind: 'unary', op, arg, dtype: arg.dtype }, this.flexible.has(arg));
      }
      const left = this.expr(scope);
      if (t.eat('if')) {
        const cond = this.parse(scope, 'bool');
        t.expect('else');
        const other = this.expr(scope);
        t.expect(')');
        const [a, b] = this.unify(left, other);
        return this.mark({ kind: 'ternary', cond, then: a, else: b, dtype: a.dtype }, this.flexible.has(a) && this.flexible.has(b));
      }
      const opTok = t.peek();
      if (!BINARY.has(opTok.text)) t.error(`expected an operator, 'if' or ')', found '${opTok.text}'`, opTok.text === '<end of text>' ? opTok : undefined);
      t.next();
      const op = opTok.text as BinaryOp;
      let right = this.expr(scope);
      t.expect(')');
      let l = left;
      if (op === '**') {
        // the exponent keeps its own dtype (the verifier allows it)
        if (this.flexible.has(l) && !this.flexible.has(right)) this.settle(l, right.dtype);
      } else [l, right] = this.unify(l, right);
      const dtype: DType = BOOL_OPS.has(op) ? 'bool' : l.dtype;
      return this.mark({ kind: 'binary', op, left: l, right, dtype }, !BOOL_OPS.has(op) && this.flexible.has(l) && (op === '**' || this.flexible.has(right)));
    }
    if (t.is('-') && t.peek(1).kind === 'number' && !t.peek(1).spaced) {
      t.next();
      return this.number(true);
    }
    if (t.is('-') && (t.is('inf', 1) || t.is('inff', 1)) && !t.peek(1).spaced) {
      t.next();
      return { kind: 'lit', value: -Infinity, dtype: t.next().text === 'inff' ? 'float32' : 'float64' };
    }
    const tok = t.peek();
    if (tok.kind === 'number') return this.number(false);
    if (tok.kind !== 'ident') t.error(`expected an expression, found '${tok.text}'`);
    t.next();
    const name = tok.text;
    switch (name) {
      case 'True':
      case 'False':
        return { kind: 'lit', value: name === 'True', dtype: 'bool' };
      case 'nan':
      case 'inf':
        return { kind: 'lit', value: name === 'nan' ? NaN : Infinity, dtype: 'float64' };
      case 'nanf':
      case 'inff':
        return { kind: 'lit', value: name === 'nanf' ? NaN : Infinity, dtype: 'float32' };
    }
    if (t.is('(') && DTYPES.has(name)) {
      t.next();
      const arg = this.expr(scope);
      t.expect(')');
      return { kind: 'cast', arg, dtype: name as DType };
    }
    if (t.is('(') && BUILTINS.has(name)) return this.call(scope, name as BuiltinFn);
    if (name === 'index' && t.is('(') && t.is('K', 1) && t.is(')', 2)) {
      t.next();
      t.next();
      t.next();
      return { kind: 'kindex', dtype: 'int64' };
    }
    if (t.is('.') && t.is('shape', 1)) {
      t.next();
      t.next();
      t.expect('[');
      const axis = t.int();
      t.expect(']');
      if (!scope.field(name)) t.error(`unknown array '${name}'`, tok);
      return { kind: 'shape', name, axis, dtype: 'int64' };
    }
    if (t.is('[')) {
      const dtype = scope.field(name);
      if (!dtype) t.error(`unknown field '${name}'`, tok);
      t.next();
      const i = t.int();
      t.expect(',');
      const j = t.int();
      t.expect(',');
      const k = t.int();
      let kOffset: Expr | undefined;
      if (t.eat('+')) kOffset = this.parse(scope, 'int64');
      t.expect(']');
      let data: Expr[] | undefined;
      if (t.eat('[')) {
        data = [this.parse(scope, 'int64')];
        while (t.eat(',')) data.push(this.parse(scope, 'int64'));
        t.expect(']');
      }
      return { kind: 'field', name, offset: [i, j, k], ...(kOffset ? { kOffset } : {}), ...(data ? { data } : {}), ...(kOffset || data?.some((d) => d.kind !== 'lit') ? { loc: this.t.loc(tok) } : {}), dtype };
    }
    const dtype = scope.scalar(name);
    if (!dtype) t.error(`unknown scalar '${name}'`, tok);
    return { kind: 'scalar', name, dtype };
  }

  private number(negative: boolean): Expr {
    const text = this.t.next().text;
    const f32 = text.endsWith('f');
    const body = f32 ? text.slice(0, -1) : text;
    const value = (negative ? -1 : 1) * Number(body);
    if (f32) return { kind: 'lit', value, dtype: 'float32' };
    if (/[.eE]/.test(body)) return { kind: 'lit', value, dtype: 'float64' };
    return this.mark({ kind: 'lit', value, dtype: 'int64' }, true);
  }

  private call(scope: ExprScope, fn: BuiltinFn): Expr {
    const t: Tokens = this.t;
    t.expect('(');
    const args: Expr[] = [];
    if (!t.is(')')) {
      do args.push(this.expr(scope));
      while (t.eat(','));
    }
    t.expect(')');
    if (args.length === 0) t.error(`${fn}() needs arguments`);
    const typed = args.find((a) => !this.flexible.has(a));
    if (typed) for (const a of args) if (this.flexible.has(a)) this.settle(a, typed.dtype);
    const all = !typed;
    const dtype: DType = BOOL_RESULT.has(fn) ? 'bool' : args[0].dtype;
    return this.mark({ kind: 'call', fn, args, dtype }, all && KEEP_TYPE.has(fn));
  }

  /** Two operands of one op: an open one takes the other's dtype. */
  private unify(a: Expr, b: Expr): [Expr, Expr] {
    if (this.flexible.has(a) && !this.flexible.has(b)) this.settle(a, b.dtype);
    else if (this.flexible.has(b) && !this.flexible.has(a)) this.settle(b, a.dtype);
    return [a, b];
  }

  private mark(e: Expr, open: boolean): Expr {
    if (open) this.flexible.add(e);
    return e;
  }

  /** Fixes the dtype of an open expression (an integer literal stays an integer). */
  settle(e: Expr, dtype: DType): void {
    if (!this.flexible.has(e) || !isIntDType(dtype)) return;
    this.flexible.delete(e);
    e.dtype = dtype;
    switch (e.kind) {
      case 'unary':
        this.settle(e.arg, dtype);
        break;
      case 'binary':
        this.settle(e.left, dtype);
        if (e.op !== '**') this.settle(e.right, dtype);
        break;
      case 'ternary':
        this.settle(e.then, dtype);
        this.settle(e.else, dtype);
        break;
      case 'call':
        e.args.forEach((a) => this.settle(a, dtype));
        break;
    }
  }
}
