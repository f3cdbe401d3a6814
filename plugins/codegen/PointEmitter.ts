import type { CheckStmt } from '../../core/ir/debugChecks.js';
import { axisIndices, type Expr, type HLoop, type Stmt } from '../../core/ir/types.js';
import type { Codegen, PointContext } from './Codegen.js';
import { CTYPE, convert, cString, floatLiteral } from './cText.js';
import { regionCondition } from './ExprEmitter.js';
import { DEFAULT_MAX_WHILE_ITERATIONS, WHILE_LIMIT_HINT, whileLimitMessage } from '../../core/ir/whileBound.js';
import { locatedErrorHint, locatedErrorPrefix } from '../../core/runtime/locatedError.js';

/**
 * Point statements: the body of a loop nest at one point (i, j, k), the same on host and
 * device. Where backends differ (debug checks, the end of a `while` after a failed
 * variable-K read) they ask the loop strategy.
 */
export class PointEmitter {
  /** Names each while loop's iteration counter. */
  private whileLoops = 0;
  /** Region statements whose test was taken before the K loop (regionVersions.ts): whether each holds. */
  fixedRegions: Map<Stmt, boolean> | undefined;

  constructor(private readonly cg: Codegen) {}

  /** Declares an HLoop's point-local scalars (zero at every point) inside the innermost loop. */
  pointLocals(h: HLoop, ctx: PointContext): void {
    ctx.locals = new Map((h.locals ?? []).map((l) => [l.name, l.dtype]));
    for (const l of h.locals ?? []) this.cg.w.line(`${CTYPE[l.dtype]} ${this.cg.ids.local(l.name)} = ${convert('0', 'int32', l.dtype)};`);
  }

  stmts(body: readonly Stmt[], ctx: PointContext): void {
    for (const s of body) this.stmt(s, ctx);
  }

  private stmt(s: Stmt, ctx: PointContext): void {
    const w = this.cg.w;
    this.cg.stmtLoc = s.loc;
    switch (s.kind) {
      case 'assign': {
        const a = this.cg.array(s.target);
        const value = convert(this.cg.ex.expr(s.value, ctx), s.value.dtype, a.dtype);
        const stored = a.dtype === 'bool' ? `static_cast<uint8_t>(${value})` : value;
        if (s.kVar) {
          const data = s.data?.map((d): Expr => ({ kind: 'lit', value: d, dtype: 'int64' }));
          const parts = this.cg.ex.variableKParts(s.target, [0, 0, s.kOffset ?? 0], s.kVar, s.loc, ctx, data, 'written');
          this.cg.mapped(s.loc, () => w.line(this.cg.loops.variableKWrite(parts, stored)));
          return;
        }
        this.cg.mapped(s.loc, () => w.line(`${this.cg.ex.fieldRef(s.target, [0, 0, s.kOffset ?? 0], ctx, s.data)} = ${stored};`));
        return;
      }
      case 'if':
        this.cg.mapped(s.loc, () => w.open(`if (${this.cg.ex.cond(s.cond, ctx)}) {`));
        this.stmts(s.then, ctx);
        if (s.else.length) {
          w.reopen('} else {');
          this.stmts(s.else, ctx);
        }
        w.close();
        return;
      case 'while': {
        // bounded as the interpreter bounds it, with its message at the loop's line; after any
        // failed point (a variable-K read reads 0, or another loop hit its bound) the loop ends
        const max = this.cg.opts.maxWhileIterations ?? DEFAULT_MAX_WHILE_ITERATIONS;
        const count = `orch_iter${++this.whileLoops}`;
        const message = cString(`${locatedErrorPrefix('E_RUNTIME', s.loc)}${whileLimitMessage(this.cg.launchName, max)}${locatedErrorHint(WHILE_LIMIT_HINT)}`);
        w.open('{');
        w.line(`int64_t ${count} = 0;`);
        this.cg.mapped(s.loc, () => w.open(`while (${this.cg.ex.cond(s.cond, ctx)} && !${this.cg.loops.variableKFailed}) {`));
        this.stmts(s.body, ctx);
        w.open(`if (++${count} > ${max}LL) {`);
        w.line(this.cg.loops.pointFailure(message));
        w.line('break;');
        w.close();
        w.close();
        w.close();
        return;
      }
      case 'region': {
        const fixed = this.fixedRegions?.get(s);
        if (fixed === false) return;
        if (fixed === true) {
          w.open('{');
          this.stmts(s.body, ctx);
          w.close();
          return;
        }
        this.cg.mapped(s.loc, () => w.open(`if (${regionCondition(s.regions)}) {`));
        this.stmts(s.body, ctx);
        w.close();
        return;
      }
      case 'let': {
        const dt = ctx.locals.get(s.name);
        if (!dt) throw new Error(`let of '${s.name}', which is not a local of its loop nest`);
        this.cg.mapped(s.loc, () => w.line(`${this.cg.ids.local(s.name)} = ${convert(this.cg.ex.expr(s.value, ctx), s.value.dtype, dt)};`));
        return;
      }
      case 'check':
        this.cg.loops.check(s, ctx);
        return;
    }
  }

  /**
   * The checked value (as a double), the failing test, and the report's printf format (a
   * C string): `%g` for the value of a 'negative' check, then `%lld` per array index.
   */
  checkParts(s: CheckStmt, ctx: PointContext): { value: string; test: string; format: string } {
    const a = this.cg.array(s.target);
    const value = `static_cast<double>(${this.cg.ex.fieldRef(s.target, [0, 0, s.kOffset ?? 0], ctx, s.data)})`;
    const test = s.check.test === 'nan' ? `std::isnan(${value})` : `${value} < ${floatLiteral(s.check.threshold, 'float64')}`;
    const fmtIdx = axisIndices(a.axes).map((ax) => `${'ijk'[ax]}=%lld`).join(', ');
    const what = s.check.test === 'nan' ? 'is NaN' : `is %g, below ${s.check.threshold}`;
    const msg = `debug check: ${s.target} ${what} at ${fmtIdx} in program ${s.check.program}, stencil ${s.check.stencil} (${s.loc.file}:${s.loc.line})`;
    return { value, test, format: cString(msg.replace(/%(?!lld|g)/g, '%%')) };
  }
}
