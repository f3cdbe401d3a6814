import type { ArrayDecl, HaloStmt, PStmt, SourceLoc } from '../../core/ir/types.js';
import type { PyExpr } from '../../core/python/ast.js';
import type { Value } from '../../core/frontend/values.js';
import { haloArgumentOrder, haloFieldAxes, haloFieldDataDims, haloFieldTwice, haloInFlight, haloStartNeverWaited, haloStartNotWaitedInBlock, haloTakesNoKeywords, haloWaitArguments, haloWaitOutsideBlock, haloWaitWithoutStart, haloWidthNotConstant, haloWidthOutside } from '../../core/diagnostics/haloErrors.js';

/** The halo-exchange builtins a program may call (`from orch import halo_update`). */
const HALO_BUILTINS = ['halo_update', 'halo_update_start', 'halo_update_wait'] as const;
type HaloBuiltin = (typeof HALO_BUILTINS)[number];

export function isHaloBuiltin(name: string): name is HaloBuiltin {
  return (HALO_BUILTINS as readonly string[]).includes(name);
}

/** What halo lowering needs from the program being lowered. */
interface HaloContext {
  arrayOf(e: PyExpr): ArrayDecl;
  constant(e: PyExpr, what: string): Value;
  /** Where the compute domain starts in every array (NDSL's n_halo). */
  halo: number;
}

type CallExpr = Extract<PyExpr, { t: 'call' }>;

/**
 * `halo_update(q, r, 2)`, `halo_update_start(q, r, 2)` and `halo_update_wait(q, r)` ->
 * `halo` statements. The width is the last argument, a compile-time int (NDSL's
 * n_points); a wait names the same fields as its start and takes its width.
 */
export class HaloLowering {
  private next = 0;
  /** Starts not yet waited, by field set. */
  private readonly pending = new Map<string, { exchange: number; width: number; loc: SourceLoc }>();

  constructor(private readonly ctx: HaloContext) {}

  lower(name: HaloBuiltin, e: CallExpr): PStmt {
    if (e.kwargs.length) throw haloTakesNoKeywords(name, e.kwargs[0].loc, `write ${name}(q, ${name === 'halo_update_wait' ? '' : 'n_halo'})`.replace(', )', ')'));
    const args = [...e.args];
    let width: number | null = null;
    if (name !== 'halo_update_wait') {
      const last = args.pop();
      if (!last || !args.length) throw haloArgumentOrder(name, e.loc);
      const w = this.ctx.constant(last, 'the halo width');
      if (w.k !== 'num' || !w.isInt) throw haloWidthNotConstant(name, last.loc);
      width = this.width(w.value, last.loc);
    } else if (!args.length) throw haloWaitArguments(e.loc);
    return this.exchange(name, args.map((a) => ({ decl: this.ctx.arrayOf(a), loc: a.loc })), width, e.loc);
  }

  /**
   * An NDSL WrappedHaloUpdater's `update()`, `start()` or `wait()` (`call` at `loc`), whose
   * closure found it exchanges these arrays (by parameter name) at this width.
   */
  lowerUpdater(call: 'update' | 'start' | 'wait', fields: ArrayDecl[], width: number, loc: SourceLoc): PStmt {
    const name = call === 'update' ? 'halo_update' : call === 'start' ? 'halo_update_start' : 'halo_update_wait';
    return this.exchange(name, fields.map((decl) => ({ decl, loc })), call === 'wait' ? null : this.width(width, loc), loc);
  }

  private width(width: number, loc: SourceLoc): number {
    if (width < 1 || width > this.ctx.halo) {
      throw haloWidthOutside(width, this.ctx.halo, loc);
    }
    return width;
  }

  private exchange(name: HaloBuiltin, args: { decl: ArrayDecl; loc: SourceLoc }[], width: number | null, loc: SourceLoc): PStmt {
    const fields: string[] = [];
    for (const { decl, loc: at } of args) {
      if (!decl.axes.startsWith('IJ')) throw haloFieldAxes(decl.name, decl.axes, at);
      if (decl.dims) throw haloFieldDataDims(decl.name, decl.dims.join(', '), at);
      if (fields.includes(decl.name)) throw haloFieldTwice(decl.name, at);
      fields.push(decl.name);
    }
    const key = [...fields].sort().join('\0');
    const base = { kind: 'halo' as const, fields, halo: this.ctx.halo, loc: loc };
    if (name === 'halo_update_wait') {
      const start = this.pending.get(key);
      if (!start) throw haloWaitWithoutStart(fields.join(', '), loc);
      this.pending.delete(key);
      return { ...base, phase: 'wait', exchange: start.exchange, width: start.width } satisfies HaloStmt;
    }
    for (const f of fields) {
      const inFlight = [...this.pending.entries()].find(([k]) => k.split('\0').includes(f));
      if (inFlight) throw haloInFlight(f, inFlight[1].loc.line, loc);
    }
    const exchange = this.next++;
    if (name === 'halo_update_start') this.pending.set(key, { exchange, width: width!, loc: loc });
    return { ...base, phase: name === 'halo_update' ? 'update' : 'start', exchange, width: width! } satisfies HaloStmt;
  }

  /** Every start is waited for in the statement list it appears in (a loop body, a branch). */
  check(body: PStmt[]): void {
    for (const start of this.pending.values()) {
      throw haloStartNeverWaited(start.loc);
    }
    checkPairs(body);
  }
}

function checkPairs(list: PStmt[]): void {
  const open = new Map<number, HaloStmt>();
  for (const s of list) {
    if (s.kind === 'halo' && s.phase === 'start') open.set(s.exchange, s);
    else if (s.kind === 'halo' && s.phase === 'wait') {
      if (!open.delete(s.exchange)) throw haloWaitOutsideBlock(s.loc);
    } else if (s.kind === 'for' || s.kind === 'while') checkPairs(s.body);
    else if (s.kind === 'if') {
      checkPairs(s.then);
      checkPairs(s.else);
    }
  }
  for (const s of open.values()) throw haloStartNotWaitedInBlock(s.loc);
}
