import { OrchError } from '../../core/diagnostics.js';
import type { CallbackDecl, DType, Expr, HostStmt, ScalarVar, SourceLoc } from '../../core/ir/types.js';
import type { PyExpr, PyStmt } from '../../core/python/ast.js';
import { ExprLowering, type Term } from './ExprLowering.js';
import type { ModuleLoader } from '../../core/frontend/ModuleLoader.js';
import { cast, isFloat } from './typeRules.js';
import { describeValue, type FunctionInfo, type Value } from '../../core/frontend/values.js';
import { int } from '../../core/ir/build.js';
import { callInCallback, callbackAssignsNonName, callbackChainedAssignment, callbackExpressionStatement, callbackLoopNotRange, callbackMethod, callbackNameNotDefined, callbackNameNotEvaluated, callbackParameterType, callbackParameterUntyped, callbackResultType, callbackResultUndeclared, callbackVariadic, floatAssignedParameter, indexingInCallback, notInCallback, statementInCallback } from '../../core/diagnostics/callbackErrors.js';

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
      throw callbackVariadic(def.name, p.loc);
    }
    if (p.name === 'self') throw callbackMethod(def.name, p.loc);
    if (!p.annotation) {
      throw callbackParameterUntyped(p.name, p.loc);
    }
    const t = loader.eval(p.annotation, fn.module);
    if (t.k !== 'dtype') {
      throw callbackParameterType(p.name, t.k, p.annotation.loc);
    }
    params.push({ name: p.name, dtype: t.dtype });
  }
  let result: DType | null = null;
  if (def.returns) {
    const t = loader.eval(def.returns, fn.module);
    if (t.k === 'dtype') result = t.dtype;
    else if (t.k !== 'none') {
      throw callbackResultType(def.name, def.returns.loc);
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
        throw callbackExpressionStatement(s.loc);
      // eslint-disable-next-line no-fallthrough
      case 'assign': {
        if (s.targets.length !== 1) throw callbackChainedAssignment(s.loc);
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
          throw callbackResultUndeclared(this.fn.def.name, s.loc);
        }
        return [{ kind: 'return', value: cast(v, this.decl.result), loc: s.loc }];
      }
      case 'unsupported':
        if (s.what === 'raise') return [{ kind: 'raise', message: this.sourceText(s.loc, s.length), loc: s.loc }];
        throw notInCallback(s.what, s.loc);
      // eslint-disable-next-line no-fallthrough
      default:
        throw statementInCallback(s.t, s.loc);
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
      throw callbackLoopNotRange(s.loc);
    }
    const args = it.args.map((a) => cast(this.expr(a), 'int64'));
    const [start, stop, step] = args.length === 1 ? [int(0), args[0], int(1)] : args.length === 2 ? [args[0], args[1], int(1)] : args;
    const v = this.declare(s.target.id, 'int64');
    return { kind: 'for', var: v.name, start, stop, step, body: this.block(s.body), loc: s.loc };
  }

  private set(target: PyExpr, value: Expr, loc: SourceLoc): HostStmt {
    if (target.t !== 'name') throw callbackAssignsNonName(target.loc);
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
      if (v.role === 'arg') throw floatAssignedParameter(v.dtype, name, this.fn.def.loc);
      v.dtype = 'float64';
    }
    return v;
  }

  protected name(id: string, e: PyExpr): Term {
    const v = this.scalars.get(id);
    if (v) return { r: { kind: 'scalar', name: v.name, dtype: v.dtype } };
    const c = this.loader.lookup(this.fn.module, id);
    if (c === undefined) throw callbackNameNotDefined(id, e.loc);
    if (c.k === 'opaque') throw callbackNameNotEvaluated(id, c.why, e.loc);
    return { c };
  }

  protected subscript(e: Extract<PyExpr, { t: 'subscript' }>): Term {
    throw indexingInCallback(e.loc);
  }

  protected userCall(callee: Value, e: Extract<PyExpr, { t: 'call' }>): Term {
    throw callInCallback(describeValue(callee), e.loc);
  }
}
