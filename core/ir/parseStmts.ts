import { DTYPES as ALL_DTYPES } from './dtypes.js';
import type { Tokens } from './lex.js';
import { ExprParser, type ExprScope } from './parseExpr.js';
import type { AxisBound, DType, Expr, HorizontalRegion, HostStmt, RegionAxis, Stmt } from './types.js';

/**
 * Statements of the IR's text form: point statements (stencil and loop-nest bodies) and
 * callback statements, with the small pieces every part of core/ir/parse.ts reads (names
 * from a list, tuples, bounds). `IRParser` (parse.ts) adds declarations and programs.
 */
const DTYPES: string[] = [...ALL_DTYPES];

export class StmtParser {
  protected readonly ex: ExprParser;
  /** The program being read, named by its debug checks. */
  protected name = '';

  constructor(protected readonly t: Tokens) {
    this.ex = new ExprParser(t);
  }

  protected oneOf<T extends string>(values: string[], what: string): T {
    const tok = this.t.peek();
    if (tok.kind !== 'ident' || !values.includes(tok.text)) this.t.error(`expected ${what} (${values.join(', ')}), found '${tok.text}'`);
    return this.t.next().text as T;
  }

  protected dtype(): DType {
    return this.oneOf<DType>(DTYPES, 'a dtype');
  }

  protected list<T>(close: string, item: () => T): T[] {
    const out: T[] = [];
    if (this.t.eat(close)) return out;
    do out.push(item());
    while (this.t.eat(','));
    this.t.expect(close);
    return out;
  }

  protected tuple(scope: ExprScope, want?: DType): Expr[] {
    this.t.expect('(');
    return this.list(')', () => this.ex.parse(scope, want));
  }

  /** A number as `String(v)` prints it (compile-time values, check thresholds). */
  protected constant(): number {
    const neg = this.t.eat('-');
    const tok = this.t.next();
    const v = tok.kind === 'number' ? Number(tok.text) : tok.text === 'Infinity' ? Infinity : tok.text === 'NaN' ? NaN : this.t.error(`expected a number, found '${tok.text}'`, tok);
    return neg ? -v : v;
  }

  /** `start`, `end-1`, `start+2` */
  protected bound(): AxisBound {
    const level = this.oneOf<'start' | 'end'>(['start', 'end'], 'a bound');
    if (this.t.is('+') || this.t.is('-')) {
      const sign = this.t.next().text === '-' ? -1 : 1;
      return { level, offset: sign * this.t.int() };
    }
    return { level, offset: 0 };
  }

  protected regionAxis(): RegionAxis {
    const start = this.t.is('start') || this.t.is('end') ? this.bound() : null;
    this.t.expect(':');
    const end = this.t.is('start') || this.t.is('end') ? this.bound() : null;
    return { start, end };
  }

  /** Point statements until the closing `}` (not consumed). */
  protected stmts(scope: ExprScope, stencil: string): Stmt[] {
    const t: Tokens = this.t;
    const out: Stmt[] = [];
    while (!t.is('}')) {
      const loc = t.loc();
      // `q[0, 0, 1] = ...` writes at a K offset; `region [...]` is a keyword
      const assign = t.is('=', 1) || (t.is('[', 1) && !t.peek(1).spaced);
      if (!assign && t.eat('let')) {
        const nameTok = t.peek();
        const name = t.ident('a local name');
        const dtype = scope.scalar(name);
        if (!dtype) t.error(`unknown point local '${name}'`, nameTok);
        t.expect('=');
        out.push({ kind: 'let', name, value: this.ex.parse(scope, dtype), loc });
      } else if (!assign && t.eat('check')) {
        const test = this.oneOf<'nan' | 'negative'>(['nan', 'negative'], 'a check');
        let threshold = 0;
        if (test === 'negative') {
          t.expect('<');
          threshold = this.constant();
        }
        const target = t.ident('the checked array');
        const kOffset = this.writeOffset();
        const data = this.writeData();
        out.push({ kind: 'check', target, check: { test, threshold, program: this.name, stencil, action: 'abort' }, loc, ...(kOffset ? { kOffset } : {}), ...(data ? { data } : {}) });
      } else if (!assign && t.eat('if')) {
        const cond = this.ex.parse(scope, 'bool');
        t.expect('{');
        const then = this.stmts(scope, stencil);
        t.expect('}');
        let other: Stmt[] = [];
        if (t.eat('else')) {
          t.expect('{');
          other = this.stmts(scope, stencil);
          t.expect('}');
        }
        out.push({ kind: 'if', cond, then, else: other, loc });
      } else if (!assign && t.eat('while')) {
        const cond = this.ex.parse(scope, 'bool');
        t.expect('{');
        out.push({ kind: 'while', cond, body: this.stmts(scope, stencil), loc });
        t.expect('}');
      } else if (!assign && t.eat('region')) {
        const split = t.eat('split');
        const regions: HorizontalRegion[] = [];
        do {
          t.expect('[');
          const i = this.regionAxis();
          t.expect(',');
          const j = this.regionAxis();
          t.expect(']');
          regions.push({ i, j });
        } while (t.eat('|'));
        t.expect('{');
        out.push({ kind: 'region', regions, body: this.stmts(scope, stencil), loc, ...(split ? { split } : {}) });
        t.expect('}');
      } else {
        const targetTok = t.peek();
        const target = t.ident('a statement');
        const dtype = scope.field(target);
        if (!dtype) t.error(`unknown field '${target}'`, targetTok);
        let kVar: Expr | undefined;
        const kOffset = this.writeOffset(() => (kVar = this.ex.parse(scope, 'int64')));
        const data = this.writeData();
        t.expect('=');
        out.push({ kind: 'assign', target, value: this.ex.parse(scope, dtype), loc, ...(kOffset ? { kOffset } : {}), ...(kVar ? { kVar } : {}), ...(data ? { data } : {}) });
      }
    }
    return out;
  }

  /** `[d0, d1]` after the offset of a write to one element of a field's data dimensions. */
  private writeData(): number[] | undefined {
    if (!this.t.eat('[')) return undefined;
    const out = [this.t.int()];
    while (this.t.eat(',')) out.push(this.t.int());
    this.t.expect(']');
    return out;
  }

  /** `[0, 0, k]` after a written or checked field: the K offset of the write (0 without). */
  private writeOffset(variable?: () => void): number {
    if (!this.t.eat('[')) return 0;
    const i = this.t.int();
    this.t.expect(',');
    const j = this.t.int();
    this.t.expect(',');
    const k = this.t.int();
    // `+ expr`: a K offset computed at the point (assignments only)
    if (variable && this.t.eat('+')) variable();
    this.t.expect(']');
    if (i !== 0 || j !== 0) this.t.error('a write has a K offset only: write [0, 0, k]');
    return k;
  }

  protected setTarget(scope: ExprScope): { name: string; value: Expr } {
    const tok = this.t.peek();
    const name = this.t.ident('a scalar name');
    const dtype = scope.scalar(name);
    if (!dtype) this.t.error(`unknown scalar '${name}'`, tok);
    this.t.expect('=');
    return { name, value: this.ex.parse(scope, dtype) };
  }

  protected forHead(scope: ExprScope): { v: string; start: Expr; stop: Expr; step: Expr } {
    const t: Tokens = this.t;
    const v = t.ident('a loop variable');
    const dtype = scope.scalar(v) ?? 'int64';
    t.expect('in');
    t.expect('range');
    const [start, stop, step] = this.tuple(scope, dtype);
    return { v, start, stop, step };
  }

  protected hostStmts(scope: ExprScope, result: DType | null): HostStmt[] {
    const t: Tokens = this.t;
    const out: HostStmt[] = [];
    const block = (): HostStmt[] => {
      t.expect('{');
      const b = this.hostStmts(scope, result);
      t.expect('}');
      return b;
    };
    while (!t.is('}')) {
      const loc = t.loc();
      const kw = t.ident('a statement');
      if (kw === 'set') out.push({ kind: 'set', ...this.setTarget(scope), loc });
      else if (kw === 'for') {
        const { v, start, stop, step } = this.forHead(scope);
        out.push({ kind: 'for', var: v, start, stop, step, body: block(), loc });
      } else if (kw === 'while') {
        const cond = this.ex.parse(scope, 'bool');
        out.push({ kind: 'while', cond, body: block(), loc });
      } else if (kw === 'if') {
        const cond = this.ex.parse(scope, 'bool');
        const then = block();
        out.push({ kind: 'if', cond, then, else: t.eat('else') ? block() : [], loc });
      } else if (kw === 'return') {
        const bare = t.is('}') || t.peek().line !== t.peek(-1).line;
        out.push({ kind: 'return', value: bare ? null : this.ex.parse(scope, result ?? undefined), loc });
      } else if (kw === 'raise') {
        const msg = t.next();
        if (msg.kind !== 'string') t.error(`expected the raised message, found '${msg.text}'`, msg);
        out.push({ kind: 'raise', message: JSON.parse(msg.text) as string, loc });
      } else t.error(`expected a callback statement, found '${kw}'`, t.peek(-1));
    }
    return out;
  }}
