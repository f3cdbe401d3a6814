import { fail, OrchError } from '../../core/diagnostics.js';
import type { CallbackDecl, DType, Expr, HostStmt, ScalarVar, SourceLoc } from '../../core/ir/types.js';
import type { PyExpr, PyStmt } from '../../core/python/ast.js';
import { ExprLowering, type Term } from './ExprLowering.js';
import type { ModuleLoader } from '../../core/frontend/ModuleLoader.js';
import { cast, isFloat } from './typeRules.js';
import { describeValue, type FunctionInfo, type Value } from '../../core/frontend/values.js';
import { int } from '../../core/ir/build.js';

/**
 * `@callback` function -> `CallbackDecl`. The signature is required (the ABI passes
 * typed scalars), so a bad signature is an error. The body is lowered only so orch's own
 * hosts (the interpreter, `orch run`) can evaluate it: if it is anything but scalar
 * arithmetic, `host` is null and `why` says where, and only those hosts refuse to run it.
 */
export function lowerCallback(fn: FunctionInfo, name: string, loader: ModuleLoader, method = false): CallbackDecl {
  const def = fn.def;
  const params: CallbackDecl['params'] = [];
  // a method callback of a component: the host calls it bound to its object
  for (const p of method ? def.params.slice(1) : def.params) {
    if (p.kind === 'varargs' || p.kind === 'kwargs') {
      fail('E_CALLBACK_SIGNATURE', `callback '${def.name}' cannot take *args/**kwargs`, { loc: p.loc, hint: 'declare every parameter by name with a scalar type' });
    }
    if (p.name === 'self') fail('E_CALLBACK_SIGNATURE', `callback '${def.name}' is a method`, { loc: p.loc, hint: 'define callbacks as module-level functions' });
    if (!p.annotation) {
      fail('E_CALLBACK_SIGNATURE', `callback parameter '${p.name}' has no type annotation`, { loc: p.loc, hint: 'annotate it float, int or bool: the library passes typed scalars' });
    }
    const t = loader.eval(p.annotation, fn.module);
    if (t.k !== 'dtype') {
      fail('E_CALLBACK_SIGNATURE', `callback parameter '${p.name}' must be a scalar (float, int, bool)${t.k === 'fieldType' ? ', not a field' : ''}`, {
        loc: p.annotation.loc,
        hint: t.k === 'fieldType' ? 'callbacks receive scalars; compute field values in a stencil' : 'annotate it float, int or bool',
      });
    }
    params.push({ name: p.name, dtype: t.dtype });
  }
  let result: DType | null = null;
  if (def.returns) {
    const t = loader.eval(def.returns, fn.module);
    if (t.k === 'dtype') result = t.dtype;
    else if (t.k !== 'none') {
      fail('E_CALLBACK_SIGNATURE', `callback '${def.name}' must return a scalar (float, int, bool) or None`, { loc: def.returns.loc, hint: 'annotate the return type -> float, -> int, -> bool or -> None' });
    }
  }
  const decl: CallbackDecl = { name, function: { file: fn.module.file, name: def.name }, params, result, loc: def.nameLoc, host: null };
  try {
    decl.host = new CallbackBodyLowering(fn, decl, loader).lower();
  } catch (e) {
    if (!(e instanceof OrchError)) throw e;
    decl.why = { message: e.diagnostic.message, loc: e.diagnostic.loc ?? def.nameLoc };
  }
  return decl;
}

/** The scalar-only subset of Python a callback body may use for orch to evaluate it. */
class CallbackBodyLowering extends ExprLowering {
  private readonly scalars = new Map<string, ScalarVar>();
  private readonly lines: string[];

  constructor(
    readonly fn: FunctionInfo,
    readonly decl: CallbackDecl,
    readonly loader: ModuleLoader,
  ) {
    super();
    this.lines = (loader.filesRead.get(fn.module.file) ?? '').split(/\r?\n/);
  }

  lower(): { scalars: ScalarVar[]; body: HostStmt[] } {
    for (const p of this.decl.params) this.scalars.set(p.name, { name: p.name, dtype: p.dtype, role: 'arg' });
    const body = this.block(this.fn.def.body);
    return { scalars: [...this.scalars.values()], body };
  }

  private block(stmts: PyStmt[]): HostStmt[] {
    return stmts.flatMap((s) => this.stmt(s));
  }

  private stmt(s: PyStmt): HostStmt[] {
    switch (s.t) {
      case 'pass':
        return [];
      case 'expr':
        if (s.value.t === 'str') return [];
        fail('E_CALLBACK_BODY', 'an expression statement (a call with effects) in a callback', { loc: s.loc });
      // eslint-disable-next-line no-fallthrough
      case 'assign': {
        if (s.targets.length !== 1) fail('E_CALLBACK_BODY', 'chained assignment', { loc: s.loc });
        return [this.set(s.targets[0], this.expr(s.value), s.loc)];
      }
      case 'augassign':
        return [this.set(s.target, this.expr({ t: 'binop', op: s.op, left: s.target, right: s.value, loc: s.loc }), s.loc)];
      case 'if':
        return [{ kind: 'if', cond: cast(this.expr(s.test), 'bool'), then: this.block(s.body), else: this.block(s.orelse), loc: s.loc }];
      case 'while':
        return [{ kind: 'while', cond: cast(this.expr(s.test), 'bool'), body: this.block(s.body), loc: s.loc }];
      case 'for':
        return [this.forStmt(s)];
      case 'return': {
        if (!s.value || (s.value.t === 'const' && s.value.value === null)) return [{ kind: 'return', value: null, loc: s.loc }];
        const v = this.expr(s.value);
        if (this.decl.result === null) {
          fail('E_CALLBACK_BODY', `callback '${this.fn.def.name}' returns a value but is not annotated with a return type`, { loc: s.loc });
        }
        return [{ kind: 'return', value: cast(v, this.decl.result), loc: s.loc }];
      }
      case 'unsupported':
        if (s.what === 'raise') return [{ kind: 'raise', message: this.sourceText(s.loc, s.length), loc: s.loc }];
        fail('E_CALLBACK_BODY', `${s.what} in a callback`, { loc: s.loc });
      // eslint-disable-next-line no-fallthrough
      default:
        fail('E_CALLBACK_BODY', `a ${s.t} statement in a callback`, { loc: s.loc });
    }
  }

  private sourceText(loc: SourceLoc, length: number): string {
    const line = this.lines[loc.line - 1] ?? '';
    return line.slice(loc.col - 1, loc.col - 1 + length).trim() || 'raise';
  }

  private forStmt(s: Extract<PyStmt, { t: 'for' }>): HostStmt {
    const it = s.iter;
    const f = it.t === 'call' ? this.term(it.func) : null;
    if (s.target.t !== 'name' || it.t !== 'call' || !f || !('c' in f) || f.c.k !== 'builtin' || f.c.name !== 'range' || it.args.length < 1 || it.args.length > 3) {
      fail('E_CALLBACK_BODY', 'a loop other than for name in range(...)', { loc: s.loc });
    }
    const args = it.args.map((a) => cast(this.expr(a), 'int64'));
    const [start, stop, step] = args.length === 1 ? [int(0), args[0], int(1)] : args.length === 2 ? [args[0], args[1], int(1)] : args;
    const v = this.declare(s.target.id, 'int64');
    return { kind: 'for', var: v.name, start, stop, step, body: this.block(s.body), loc: s.loc };
  }

  private set(target: PyExpr, value: Expr, loc: SourceLoc): HostStmt {
    if (target.t !== 'name') fail('E_CALLBACK_BODY', 'assignment to something other than a name', { loc: target.loc });
    const v = this.declare(target.id, value.dtype);
    return { kind: 'set', name: v.name, value: cast(value, v.dtype), loc };
  }

  /** Python names are dynamically typed: a name that ever holds a float is a float local. */
  private declare(name: string, dtype: DType): ScalarVar {
    const v = this.scalars.get(name);
    if (!v) {
      const fresh: ScalarVar = { name, dtype, role: 'local' };
      this.scalars.set(name, fresh);
      return fresh;
    }
    if (isFloat(dtype) && !isFloat(v.dtype)) {
      // a parameter keeps the dtype the library passes it with
      if (v.role === 'arg') fail('E_CALLBACK_BODY', `a float assigned to ${v.dtype} parameter '${name}'`, { loc: this.fn.def.loc });
      v.dtype = 'float64';
    }
    return v;
  }

  protected name(id: string, e: PyExpr): Term {
    const v = this.scalars.get(id);
    if (v) return { r: { kind: 'scalar', name: v.name, dtype: v.dtype } };
    const c = this.loader.lookup(this.fn.module, id);
    if (c === undefined) fail('E_CALLBACK_BODY', `name '${id}' is not defined`, { loc: e.loc });
    if (c.k === 'opaque') fail('E_CALLBACK_BODY', `'${id}': ${c.why}`, { loc: e.loc });
    return { c };
  }

  protected subscript(e: Extract<PyExpr, { t: 'subscript' }>): Term {
    fail('E_CALLBACK_BODY', 'indexing in a callback', { loc: e.loc });
  }

  protected userCall(callee: Value, e: Extract<PyExpr, { t: 'call' }>): Term {
    fail('E_CALLBACK_BODY', `a call of ${describeValue(callee)} in a callback`, { loc: e.loc });
  }
}
