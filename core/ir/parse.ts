import { registerSource } from '../diagnostics.js';
import { isCode, type Code } from '../diagnostics/codes.js';
import { lex, Tokens } from './lex.js';
import type { ExprScope } from './parseExpr.js';
import { StmtParser } from './parseStmts.js';
import type {
  ArrayDecl, Axes, CallbackDecl, Computation, DType, Expr, FieldDecl, HLoop, IntervalBlock, IterationOrder, LaunchRequirement, ParamDecl, Program,
  PStmt, Range, ScalarDecl, ScalarVar, SourceLoc, StencilDef, Tiling, VLoop,
} from './types.js';

/**
 * The IR's text form (core/ir/print.ts) parsed back into a `Program`, so pass tests can
 * start from IR text. `printProgram(parseProgram(t)) === t` for every text the printer
 * prints (test/irRoundTrip.test.ts).
 *
 * What the text leaves out gets a fixed stand-in: every `loc` is the statement's place
 * in the IR text; a debug check aborts and names the program and the stencil it sits in;
 * a requirement has no hint; a callback's function is its own name in the IR file; the
 * entry is a `program`. test/irRoundTrip.test.ts checks that nothing else is lost.
 */
export function parseProgram(text: string, file = '<ir>'): Program {
  registerSource(file, text);
  return new IRParser(new Tokens(lex(text, file), file)).program();
}

const AXES = ['IJK', 'IJ', 'IK', 'JK', 'I', 'J', 'K'];
const ORDERS = ['PARALLEL', 'FORWARD', 'BACKWARD'];

class IRParser extends StmtParser {
  private readonly arrays = new Map<string, ArrayDecl>();
  private readonly scalars = new Map<string, ScalarVar>();
  private readonly stencils: Record<string, StencilDef> = {};
  private readonly callbacks: CallbackDecl[] = [];

  /** `name: field<dtype, AXES>`, `name: field<dtype, AXES, (d0, ...)>`, `name: field<dtype, (d0, ...)>` or `name: dtype` */
  private param(): { name: string; loc: SourceLoc; dtype: DType; axes?: Axes; dims?: number[] } {
    const loc = this.t.loc();
    const name = this.t.ident('a parameter name');
    this.t.expect(':');
    if (!this.t.eat('field')) return { name, loc, dtype: this.dtype() };
    this.t.expect('<');
    const dtype = this.dtype();
    this.t.expect(',');
    let axes: Axes = '';
    if (!this.t.is('(')) {
      axes = this.oneOf<Axes>(AXES, 'axes');
      if (this.t.is(',')) this.t.next();
    }
    let dims: number[] | undefined;
    if (this.t.eat('(')) dims = this.list(')', () => this.t.int());
    this.t.expect('>');
    return { name, loc, dtype, axes, ...(dims ? { dims } : {}) };
  }

  private readonly programScope: ExprScope = {
    field: (n) => this.arrays.get(n)?.dtype,
    scalar: (n) => this.scalars.get(n)?.dtype,
  };

  program(): Program {
    const t: Tokens = this.t;
    const loc = t.loc();
    t.expect('program');
    this.name = t.ident('the program name');
    t.expect('(');
    const params: ParamDecl[] = this.list(')', () => {
      const p = this.param();
      if (p.axes !== undefined) this.arrays.set(p.name, { name: p.name, dtype: p.dtype, axes: p.axes, ...(p.dims ? { dims: p.dims } : {}), role: 'arg', loc: p.loc });
      else this.scalars.set(p.name, { name: p.name, dtype: p.dtype, role: 'arg' });
      return { name: p.name, kind: p.axes !== undefined ? 'field' : 'scalar' };
    });
    const compiletime: Record<string, number | boolean> = {};
    if (t.eat('compiletime')) {
      t.expect('{');
      this.list('}', () => {
        const k = t.ident();
        t.expect('=');
        if (t.is('true') || t.is('false')) compiletime[k] = t.next().text === 'true';
        else compiletime[k] = this.constant();
      });
    }
    t.expect('{');
    // shapes may name locals declared after them: read the declarations first
    const shapes: [ArrayDecl, number][] = [];
    while (t.is('temporary') || t.is('transient')) {
      const aloc = t.loc();
      const role = t.next().text as 'temporary' | 'transient';
      const name = t.ident('an array name');
      t.expect(':');
      const dtype = this.dtype();
      t.expect('[');
      const axes = this.oneOf<Axes>(AXES, 'axes');
      t.expect(']');
      const a: ArrayDecl = { name, dtype, axes, role, loc: aloc };
      this.arrays.set(name, a);
      t.expect('shape');
      shapes.push([a, t.save()]);
      t.skipLine();
    }
    while (t.is('local')) {
      t.next();
      const name = t.ident('a scalar name');
      t.expect(':');
      this.scalars.set(name, { name, dtype: this.dtype(), role: 'local' });
    }
    const after = t.save();
    for (const [a, pos] of shapes) {
      t.seek(pos);
      a.shape = this.tuple(this.programScope, 'int64');
      if (t.eat('pool')) {
        t.expect('[');
        const offset = this.ex.parse(this.programScope, 'int64');
        t.expect(',');
        const end = this.ex.parse(this.programScope, 'int64');
        t.expect(')');
        a.pool = { offset, end, zeroFill: t.eat('zero') };
      }
    }
    t.seek(after);
    while (t.is('stencil')) this.stencil();
    while (t.is('callback')) this.callbackDecl();
    t.expect('body');
    t.expect('{');
    const body = this.pstmts();
    t.expect('}');
    t.expect('}');
    if (t.peek().kind !== 'eof') t.error(`expected the end of the program, found '${t.peek().text}'`);
    return {
      name: this.name,
      entryKind: 'program',
      loc,
      params,
      arrays: [...this.arrays.values()],
      scalars: [...this.scalars.values()],
      compiletime,
      stencils: this.stencils,
      ...(this.callbacks.length ? { callbacks: this.callbacks } : {}),
      body,
    };
  }

  private stencil(): void {
    const t: Tokens = this.t;
    const loc = t.loc();
    t.expect('stencil');
    const name = t.ident('a stencil name');
    const fields: FieldDecl[] = [];
    const scalars: ScalarDecl[] = [];
    t.expect('(');
    const params = this.list(')', () => {
      const p = this.param();
      if (p.axes !== undefined) fields.push({ name: p.name, dtype: p.dtype, axes: p.axes, ...(p.dims ? { dims: p.dims } : {}), role: 'api' });
      else scalars.push({ name: p.name, dtype: p.dtype });
      return p.name;
    });
    t.expect('{');
    while (t.eat('temp')) {
      const tname = t.ident('a temporary name');
      t.expect(':');
      const dtype = this.dtype();
      // a typed temporary (`Field[IJ, float]`) names its axes; the others span IJK
      let axes: Axes = 'IJK';
      if (t.eat('[')) {
        axes = this.oneOf<Axes>(AXES, 'axes');
        t.expect(']');
      }
      fields.push({ name: tname, dtype, axes, role: 'temp' });
    }
    const scope: ExprScope = { field: (n) => fields.find((f) => f.name === n)?.dtype, scalar: (n) => scalars.find((s) => s.name === n)?.dtype };
    const computations: Computation[] = [];
    while (t.is('computation')) {
      const cloc = t.loc();
      t.next();
      const order = this.oneOf<IterationOrder>(ORDERS, 'an iteration order');
      t.expect('{');
      const intervals = [];
      while (t.is('interval')) {
        const iloc = t.loc();
        t.next();
        t.expect('[');
        const start = this.bound();
        t.expect(',');
        const end = this.bound();
        t.expect(')');
        let runtime: IntervalBlock['runtime'];
        if (t.eat('runtime')) {
          t.expect('[');
          const lo = t.eat('_') ? undefined : this.ex.parse(scope, 'int64');
          t.expect(',');
          const hi = t.eat('_') ? undefined : this.ex.parse(scope, 'int64');
          t.expect(')');
          runtime = { ...(lo ? { lo } : {}), ...(hi ? { hi } : {}) };
        }
        t.expect('{');
        intervals.push({ start, end, body: this.stmts(scope, name), loc: iloc, ...(runtime ? { runtime } : {}) });
        t.expect('}');
      }
      t.expect('}');
      computations.push({ order, intervals, loc: cloc });
    }
    t.expect('}');
    this.stencils[name] = { name, loc, params, fields, scalars, computations };
  }

  private range(scope: ExprScope, axis: string): Range {
    this.t.expect(axis);
    this.t.expect('in');
    this.t.expect('[');
    const lo = this.ex.parse(scope, 'int64');
    this.t.expect(',');
    const hi = this.ex.parse(scope, 'int64');
    this.t.expect(')');
    return { lo, hi };
  }

  private origins(): Record<string, Expr[]> {
    const out: Record<string, Expr[]> = {};
    this.t.expect('{');
    this.list('}', () => {
      const k = this.t.ident('a field name');
      this.t.expect(':');
      out[k] = this.tuple(this.programScope, 'int64');
    });
    return out;
  }

  private domain(): [Expr, Expr, Expr] {
    const tok = this.t.peek();
    const d = this.tuple(this.programScope, 'int64');
    if (d.length !== 3) this.t.error(`a domain has 3 extents, found ${d.length}`, tok);
    return d as [Expr, Expr, Expr];
  }

  private launch(loc: SourceLoc): PStmt {
    const t: Tokens = this.t;
    // a fused launch is named after its stencils: `a+b`
    let stencil = t.ident('a stencil name');
    while (t.eat('+')) stencil += `+${t.ident('a stencil name')}`;
    t.expect('domain');
    const domain = this.domain();
    t.expect('origins');
    const origins = this.origins();
    t.expect('transients');
    t.expect('[');
    const transients = this.list(']', () => t.ident('a transient'));
    let tile: Tiling | undefined;
    if (t.eat('tile')) {
      const sizeTok = t.peek();
      const dims = [t.int(), ...t.ident('a tile size').split('x').slice(1).map(Number)];
      if (dims.length < 2 || dims.length > 3 || dims.some((d) => !Number.isInteger(d))) t.error('expected a tile size like 8x8 or 8x8x16', sizeTok);
      t.expect('local');
      t.expect('[');
      const local = this.list(']', () => ({ name: t.ident('a tile-local array'), zeroFill: t.eat('zeroed') }));
      let versioned: Tiling['versioned'];
      if (t.eat('versioned')) {
        t.expect('[');
        versioned = this.list(']', () => {
          const name = t.ident('an array updated in place');
          t.expect('via');
          const shadow = t.ident('its shadow transient');
          return { name, shadow, fill: !t.eat('unfilled') };
        });
      }
      tile = { size: [dims[0], dims[1]], ...(dims[2] ? { k: dims[2] } : {}), local, ...(versioned ? { versioned } : {}) };
    }
    t.expect('{');
    const requires: LaunchRequirement[] = [];
    while (t.is('require')) {
      const rloc = t.loc();
      t.next();
      const cond = this.ex.parse(this.programScope, 'bool');
      t.expect('else');
      const codeTok = t.next();
      if (!isCode(codeTok.text)) t.error(`expected an error code, found '${codeTok.text}'`, codeTok);
      const code = codeTok.text as Code;
      const msgTok = t.next();
      if (msgTok.kind !== 'string') t.error(`expected the requirement's message, found '${msgTok.text}'`, msgTok);
      const args = this.tuple(this.programScope, 'int64');
      requires.push({ cond, code, message: JSON.parse(msgTok.text) as string, args, hint: '', loc: rloc });
    }
    const loops: VLoop[] = [];
    while (t.is('vloop')) loops.push(this.vloop(stencil));
    t.expect('}');
    return { kind: 'launch', stencil, domain, origins, transients, ...(requires.length ? { requires } : {}), ...(tile ? { tile } : {}), loops, loc };
  }

  private vloop(stencil: string): VLoop {
    const t: Tokens = this.t;
    const loc = t.loc();
    t.expect('vloop');
    const order = this.oneOf<IterationOrder>(ORDERS, 'an iteration order');
    const k = this.range(this.programScope, 'k');
    t.expect('{');
    const body: HLoop[] = [];
    while (t.is('hloop')) body.push(this.hloop(stencil));
    t.expect('}');
    return { order, k, body, loc };
  }

  private hloop(stencil: string): HLoop {
    const t: Tokens = this.t;
    t.expect('hloop');
    const i = this.range(this.programScope, 'i');
    const j = this.range(this.programScope, 'j');
    let grow: HLoop['grow'];
    if (t.eat('grow')) {
      t.expect('(');
      const g = this.list(')', () => t.int());
      if (g.length !== 4) t.error(`grow has 4 entries, found ${g.length}`);
      grow = g as HLoop['grow'];
    }
    let locals: HLoop['locals'];
    if (t.eat('locals')) {
      t.expect('{');
      locals = this.list('}', () => {
        const name = t.ident('a local name');
        t.expect(':');
        return { name, dtype: this.dtype() };
      });
    }
    const scope: ExprScope = { field: this.programScope.field, scalar: (n) => locals?.find((l) => l.name === n)?.dtype ?? this.programScope.scalar(n) };
    t.expect('{');
    const body = this.stmts(scope, stencil);
    t.expect('}');
    return { i, j, body, ...(locals ? { locals } : {}), ...(grow ? { grow } : {}) };
  }

  /** Program statements until the closing `}` (not consumed). */
  private pstmts(): PStmt[] {
    const t: Tokens = this.t;
    const s = this.programScope;
    const out: PStmt[] = [];
    const block = (): PStmt[] => {
      t.expect('{');
      const b = this.pstmts();
      t.expect('}');
      return b;
    };
    while (!t.is('}')) {
      const loc = t.loc();
      const kw = t.ident('a statement');
      if (kw === 'launch') out.push(this.launch(loc));
      else if (kw === 'call') out.push(this.call(loc));
      else if (kw === 'set') {
        const { name, value } = this.setTarget(s);
        out.push({ kind: 'set', name, value, loc });
      } else if (kw === 'for') {
        const { v, start, stop, step } = this.forHead(s);
        out.push({ kind: 'for', var: v, start, stop, step, body: block(), loc });
      } else if (kw === 'while') {
        const cond = this.ex.parse(s, 'bool');
        out.push({ kind: 'while', cond, body: block(), loc });
      } else if (kw === 'if') {
        const cond = this.ex.parse(s, 'bool');
        const then = block();
        out.push({ kind: 'if', cond, then, else: t.eat('else') ? block() : [], loc });
      } else if (kw === 'halo') {
        const phase = this.oneOf<'update' | 'start' | 'wait'>(['update', 'start', 'wait'], 'a halo phase');
        t.expect('#');
        const exchange = t.int();
        t.expect('(');
        const fields = this.list(')', () => {
          const tok = t.peek();
          const f = t.ident('a field name');
          if (!this.arrays.has(f)) t.error(`unknown array '${f}'`, tok);
          return f;
        });
        t.expect('width');
        const width = t.int();
        t.expect('halo');
        out.push({ kind: 'halo', phase, exchange, fields, width, halo: t.int(), loc });
      } else if (kw === 'callback') {
        const nameTok = t.peek();
        const callback = t.ident('a callback name');
        const decl = this.callbacks.find((c) => c.name === callback);
        if (!decl) t.error(`unknown callback '${callback}'`, nameTok);
        t.expect('(');
        let n = 0;
        const params = decl.params;
        const args = this.list(')', () => this.ex.parse(s, params[n++]?.dtype));
        const result = t.eat('->') ? t.ident('a result scalar') : null;
        out.push({ kind: 'callback', callback, args, result, loc });
      } else t.error(`expected a program statement, found '${kw}'`, t.peek(-1));
    }
    return out;
  }

  private call(loc: SourceLoc): PStmt {
    const t: Tokens = this.t;
    const nameTok = t.peek();
    const stencil = t.ident('a stencil name');
    const def = this.stencils[stencil];
    if (!def) t.error(`unknown stencil '${stencil}'`, nameTok);
    const fields: Record<string, string> = {};
    const scalars: Record<string, Expr> = {};
    t.expect('(');
    this.list(')', () => {
      const k = t.ident('a parameter name');
      t.expect('=');
      if (def.fields.some((f) => f.name === k)) fields[k] = t.ident('an array name');
      else scalars[k] = this.ex.parse(this.programScope, def.scalars.find((x) => x.name === k)?.dtype);
    });
    t.expect('origin');
    const origins = this.origins();
    t.expect('domain');
    return { kind: 'call', stencil, fields, scalars, origins, domain: this.domain(), loc };
  }

  private callbackDecl(): void {
    const t: Tokens = this.t;
    const loc = t.loc();
    t.expect('callback');
    const name = t.ident('a callback name');
    t.expect('(');
    const params = this.list(')', () => {
      const p = t.ident('a parameter name');
      t.expect(':');
      return { name: p, dtype: this.dtype() };
    });
    t.expect('->');
    const result = t.eat('None') ? null : this.dtype();
    const decl: CallbackDecl = { name, function: { file: this.t.file, name }, params, result, loc, host: null };
    this.callbacks.push(decl);
    if (t.is('host') && t.is('-', 1) && t.is('only', 2)) {
      t.next();
      t.next();
      t.next();
      decl.why = { message: 'its body is not pure scalar code', loc };
      return;
    }
    const scalars: ScalarVar[] = params.map((p) => ({ name: p.name, dtype: p.dtype, role: 'arg' }));
    t.expect('{');
    while (t.is('local') && !t.is('=', 1)) {
      t.next();
      const lname = t.ident('a local name');
      t.expect(':');
      scalars.push({ name: lname, dtype: this.dtype(), role: 'local' });
    }
    const scope: ExprScope = { field: () => undefined, scalar: (n) => scalars.find((s) => s.name === n)?.dtype };
    decl.host = { scalars, body: this.hostStmts(scope, result) };
    t.expect('}');
  }

}
