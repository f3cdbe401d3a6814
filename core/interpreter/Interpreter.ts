import { DEFAULT_MAX_WHILE_ITERATIONS, WHILE_LIMIT_HINT, whileLimitMessage } from '../ir/whileBound.js';
import type { ArrayDecl, CallbackDecl, DType, Expr, HaloStmt, HLoop, Launch, PStmt, Program, SourceLoc, Stmt, Tiling, VLoop } from '../ir/types.js';
import type { Boundary } from '../layout/HaloTopology.js';
import type { RankLayout } from '../layout/RankLayout.js';
import { HaloExchange } from './HaloExchange.js';
import { allocate, contiguousStrides, type NDArray } from '../runtime/ndarray.js';
import { DATA_INDEX_HINT, OUT_OF_BOUNDS_HINT, VARIABLE_K_HINT } from '../runtime/locatedError.js';
import { coerce, compileExpr, type Ev, type ExprScope } from './compileExpr.js';
import { hostFunction, type HostFn } from './hostFunction.js';
import { forEachTileClip, type Clip } from './tileClips.js';
import { VersionedTiles } from './versionedTiles.js';
import { axisMap, boundArray, poison, writeBack, type ArrayState } from './arrayState.js';
import { argumentArray, argumentScalar, arrayOutOfBounds, dataIndexOutOfBoundsAtRun, debugCheckFailed, missingEntryArgument, requirementFailed, runtimeError, variableKOutOfBounds } from '../diagnostics/runtimeErrors.js';
import { callbackReturnedNone } from '../diagnostics/callbackErrors.js';
import { haloNeedsRanks } from '../diagnostics/haloErrors.js';

export type { HostFn } from './hostFunction.js';

/**
 * The reference executor: runs an expanded `Program` (loop-nest IR) in TypeScript,
 * following the semantics documented in core/ir/types.ts. Every compiled result is
 * compared against it. Expressions are compiled to closures once per run.
 */


export type ArgValue = NDArray | number | boolean;

export interface InterpreterOptions {
  /** Host implementations by callback name; others run their `host` body (see hostFunction). */
  callbacks?: Record<string, HostFn>;
  /** Tile boundary for halo exchanges of a single-rank run (default `edges`: nothing to exchange). */
  boundary?: Boundary;
  /** The run's layout (default 1x1): a halo exchange in a layout of several ranks needs simulateRanks. */
  layout?: RankLayout;
  /** Iterations a stencil's `while` loop may run (codegen.maxWhileIterations; the compiled code's bound). */
  maxWhileIterations?: number;
}

/** A field as a halo exchange sees it (contiguous strides over the array's axes). */
export interface HaloField {
  name: string;
  data: Float64Array | Int8Array | Int16Array | Int32Array | Uint8Array | Float32Array;
  shape: number[];
  strides: number[];
}

/** Where a run stops for a halo exchange: the statement and its fields on this rank. */
export interface HaloRequest {
  stmt: HaloStmt;
  fields: HaloField[];
}



export class Interpreter {
  private arrays = new Map<string, ArrayState>();
  private scalars = new Map<string, { v: number; dtype: DType }>();
  private pt = [0, 0, 0];
  private domain = [0, 0, 0];
  private launchName = '';
  private launchLoc: SourceLoc | undefined;
  private readonly hosts = new Map<string, HostFn>();
  /** Source line of the statement being compiled, for errors raised while it runs. */
  private stmtLoc: SourceLoc | undefined;
  /** What compiled expressions read: this run's scalars, arrays and point. */
  private readonly scope: ExprScope = {
    scalar: (name) => {
      const s = this.scalars.get(name);
      if (!s) throw new Error(`interpreter: unknown scalar ${name}`);
      return s;
    },
    array: (name) => {
      const st = this.arrays.get(name);
      if (!st) throw new Error(`interpreter: unknown array ${name}`);
      return st;
    },
    index: (name, offset, kOffset, loc, data) => this.index(name, offset, kOffset, loc, data),
    kIndex: () => {
      const pt = this.pt;
      return () => pt[2];
    },
  };

  constructor(
    readonly program: Program,
    readonly options: InterpreterOptions = {},
  ) {}

  /** See hostFunction.ts. */
  static hostFunction(decl: CallbackDecl): HostFn {
    return hostFunction(decl);
  }

  private host(name: string): HostFn {
    let fn = this.hosts.get(name);
    if (!fn) {
      const decl = this.program.callbacks?.find((c) => c.name === name);
      if (!decl) throw new Error(`interpreter: unknown callback ${name}`);
      fn = this.options.callbacks?.[name] ?? Interpreter.hostFunction(decl);
      this.hosts.set(name, fn);
    }
    return fn;
  }

  /**
   * Runs the program once as the only rank of a 1x1 layout. Field arguments are updated in
   * place. Several ranks run in lockstep through `steps` (core/interpreter/RankSimulation.ts).
   */
  run(args: Record<string, ArgValue>): void {
    const layout = this.options.layout ?? { x: 1, y: 1 };
    const exchange = new HaloExchange(layout, this.options.boundary ?? 'edges');
    const steps = this.steps(args);
    for (let r = steps.next(); !r.done; r = steps.next()) {
      if (layout.x * layout.y > 1) {
        throw haloNeedsRanks(layout.x, layout.y, r.value.stmt.loc);
      }
      exchange.step([r.value]);
    }
  }

  /** Runs the program once, stopping at each halo exchange for the caller to perform it. */
  *steps(args: Record<string, ArgValue>): Generator<HaloRequest, void, void> {
    const p = this.program;
    this.arrays.clear();
    this.scalars.clear();
    for (const s of p.scalars) this.scalars.set(s.name, { v: 0, dtype: s.dtype });
    for (const prm of p.params) {
      const a = args[prm.name];
      if (a === undefined) throw missingEntryArgument(prm.name, p.name);
      if (prm.kind === 'field') {
        if (typeof a !== 'object') throw argumentArray(prm.name);
        const decl = p.arrays.find((x) => x.name === prm.name)!;
        this.arrays.set(decl.name, boundArray(decl, a));
      } else {
        if (typeof a === 'object') throw argumentScalar(prm.name);
        const s = this.scalars.get(prm.name)!;
        s.v = coerce(Number(a), s.dtype);
      }
    }
    for (const decl of p.arrays) if (decl.role === 'temporary') this.allocArray(decl);
    yield* this.execBlock(p.body);
    for (const st of this.arrays.values()) writeBack(st);
  }


  private allocArray(decl: ArrayDecl): void {
    const shape = decl.shape!.map((e) => this.evalHost(e));
    const arr = allocate(decl.dtype === 'int64' ? 'float64' : decl.dtype, shape.map((x) => Math.max(0, x)));
    // Pooled memory the pooling pass does not zero holds stale values in compiled code:
    // poison it here, so a wrong "written before read" proof changes the oracle's results.
    if (decl.pool && !decl.pool.zeroFill) arr.data.fill(poison(decl.dtype) as never);
    this.arrays.set(decl.name, { decl, data: arr.data as ArrayState['data'], shape, strides: contiguousStrides(shape), origin: [], axes: axisMap(decl) });
  }


  // ---- program level ----

  private evalHost(e: Expr): number {
    return this.compile(e)();
  }

  private *execBlock(stmts: PStmt[]): Generator<HaloRequest, void, void> {
    for (const s of stmts) {
      if (s.kind === 'halo') yield { stmt: s, fields: s.fields.map((f) => this.haloField(f)) };
      else yield* this.exec(s);
    }
  }

  private haloField(name: string): HaloField {
    const st = this.arrays.get(name);
    if (!st) throw new Error(`interpreter: halo exchange of unknown array ${name}`);
    return { name, data: st.data, shape: st.shape, strides: st.strides };
  }

  private *exec(s: Exclude<PStmt, HaloStmt>): Generator<HaloRequest, void, void> {
    switch (s.kind) {
      case 'set': {
        const v = this.scalars.get(s.name)!;
        v.v = coerce(this.evalHost(s.value), v.dtype);
        return;
      }
      case 'for': {
        const v = this.scalars.get(s.var)!;
        const start = this.evalHost(s.start);
        const stop = this.evalHost(s.stop);
        const step = this.evalHost(s.step);
        for (let i = start; step > 0 ? i < stop : i > stop; i += step) {
          v.v = i;
          yield* this.execBlock(s.body);
        }
        return;
      }
      case 'while': {
        const c = this.compile(s.cond);
        while (c()) yield* this.execBlock(s.body);
        return;
      }
      case 'if':
        yield* this.execBlock(this.evalHost(s.cond) ? s.then : s.else);
        return;
      case 'launch':
        this.launch(s);
        return;
      case 'callback': {
        const decl = this.program.callbacks!.find((c) => c.name === s.callback)!;
        const args = s.args.map((a, n) => coerce(this.evalHost(a), decl.params[n].dtype));
        const r = this.host(s.callback)(args);
        if (s.result !== null && decl.result !== null) {
          if (r === undefined) throw callbackReturnedNone(decl.name, decl.result, s.loc);
          const v = this.scalars.get(s.result)!;
          v.v = coerce(coerce(r, decl.result), v.dtype);
        }
        return;
      }
      case 'call':
        throw new Error('interpreter needs library-expanded IR (found a stencil call node)');
    }
  }

  private launch(s: Extract<PStmt, { kind: 'launch' }>): void {
    this.launchName = s.stencil;
    this.launchLoc = s.loc;
    for (const r of s.requires ?? []) {
      if (!this.evalHost(r.cond)) {
        const message = r.message.replace(/\{(\d+)\}/g, (_, n: string) => String(this.evalHost(r.args[Number(n)])));
        throw requirementFailed(r.code, message, r.loc, r.hint);
      }
    }
    this.domain = s.domain.map((d) => this.evalHost(d));
    for (const t of s.transients) this.allocArray(this.program.arrays.find((a) => a.name === t)!);
    for (const [name, o] of Object.entries(s.origins)) {
      const st = this.arrays.get(name);
      if (st) st.origin = o.map((e) => this.evalHost(e));
    }
    const loops = s.loops.map((l) => this.vloop(l));
    if (s.tile) this.tiles(s, s.tile, loops);
    else for (const run of loops) run(undefined);
    for (const t of s.transients) this.arrays.delete(t);
  }

  /**
   * A tiled launch (see Tiling in core/ir/types.ts): tile by tile, every loop, each nest
   * over its range clipped to the tile grown by the nest's growth; tile-local arrays start
   * afresh in every tile (zero-filled, or poisoned where analysis says they need not be).
   */
  private tiles(s: Launch, tile: Tiling, loops: ((clip: Clip | undefined) => void)[]): void {
    const locals = tile.local.map((l) => ({ st: this.arrays.get(l.name)!, zeroFill: l.zeroFill }));
    const versions = new VersionedTiles(s, tile, this.arrays, (e) => this.evalHost(e));
    forEachTileClip(tile, this.domain, (clip) => {
      for (const { st, zeroFill } of locals) st.data.fill((zeroFill ? 0 : poison(st.decl.dtype)) as never);
      versions.begin(clip);
      for (const run of loops) run(clip);
      versions.end(clip);
    });
    versions.finish();
  }

  /** Compiles a vertical loop; the runner takes the tile's clip of nest ranges, if any. */
  private vloop(l: VLoop): (clip: Clip | undefined) => void {
    const kFull = [this.evalHost(l.k.lo), this.evalHost(l.k.hi)] as const;
    let klo = kFull[0];
    let khi = kFull[1];
    const nests = l.body.map((h) => {
      const locals = (h.locals ?? []).map((x) => {
        const cell = { v: 0, dtype: x.dtype };
        this.scalars.set(x.name, cell);
        return cell;
      });
      const inner = this.compileStmts(h.body);
      // point-local scalars start at zero at every point, like a zero-filled array
      const body = locals.length
        ? () => {
            for (const c of locals) c.v = 0;
            inner();
          }
        : inner;
      const range: [number, number, number, number] = [this.evalHost(h.i.lo), this.evalHost(h.i.hi), this.evalHost(h.j.lo), this.evalHost(h.j.hi)];
      return { h, body, range };
    });
    const pt = this.pt;
    let clip: Clip | undefined;
    const sweepIJ = (h: HLoop, body: () => void, range: [number, number, number, number]) => {
      const [ilo, ihi, jlo, jhi] = clip ? clip.ij(h, range) : range;
      for (let i = ilo; i < ihi; i++) {
        pt[0] = i;
        for (let j = jlo; j < jhi; j++) {
          pt[1] = j;
          body();
        }
      }
    };
    return (tileClip) => {
      clip = tileClip;
      [klo, khi] = clip ? clip.k(kFull[0], kFull[1]) : kFull;
      if (l.order === 'PARALLEL') {
        for (const { h, body, range } of nests) {
          for (let k = klo; k < khi; k++) {
            pt[2] = k;
            sweepIJ(h, body, range);
          }
        }
      } else if (l.order === 'FORWARD') {
        for (let k = klo; k < khi; k++) {
          pt[2] = k;
          for (const { h, body, range } of nests) sweepIJ(h, body, range);
        }
      } else {
        for (let k = khi - 1; k >= klo; k--) {
          pt[2] = k;
          for (const { h, body, range } of nests) sweepIJ(h, body, range);
        }
      }
    };
  }

  // ---- closures ----

  private index(name: string, offset: [number, number, number], kOffset?: Ev, readLoc?: SourceLoc, data?: Ev[], verb: 'read' | 'written' = 'read'): () => number {
    const spatial = this.spatialIndex(name, offset, kOffset, readLoc, verb);
    if (!data?.length) return spatial;
    const st = this.arrays.get(name)!;
    const dims = st.decl.dims ?? [];
    const n = st.axes.length;
    const loc = readLoc ?? this.stmtLoc;
    const pt = this.pt;
    return () => {
      let idx = spatial();
      data.forEach((ev, d) => {
        const x = ev();
        if (x < 0 || x >= dims[d]) {
          // same message as the compiled code's check (plugins/codegen/ExprEmitter.ts, dataIndex)
          throw dataIndexOutOfBoundsAtRun(this.launchName, name, d, x, dims[d], pt.join(', '), loc ?? st.decl.loc, DATA_INDEX_HINT);
        }
        idx += x * st.strides[n + d];
      });
      return idx;
    };
  }

  private spatialIndex(name: string, offset: [number, number, number], kOffset?: Ev, readLoc?: SourceLoc, verb: 'read' | 'written' = 'read'): () => number {
    const st = this.arrays.get(name);
    if (!st) throw new Error(`interpreter: unknown array ${name}`);
    const pt = this.pt;
    const n = st.axes.length;
    const loc = readLoc ?? this.stmtLoc;
    const check = (idx: number, a: number) => {
      if (idx < 0 || idx >= st.shape[a]) {
        if (kOffset && st.axes[a] === 2) {
          // same message as the compiled code's check (plugins/codegen/ExprEmitter.ts, variableKParts)
          throw variableKOutOfBounds(this.launchName, name, verb, idx, st.shape[a], pt.join(', '), loc ?? st.decl.loc, VARIABLE_K_HINT);
        }
        // located at the launch's call, as the compiled code's check before the launch (HostShell.boundsChecks)
        throw arrayOutOfBounds(this.launchName, name, 'IJK'[st.axes[a]], idx, st.shape.join(', '), this.launchLoc ?? st.decl.loc, OUT_OF_BOUNDS_HINT);
      }
      return idx;
    };
    const dk = kOffset ?? (() => 0);
    if (n === 3) {
      return () =>
        check(st.origin[0] + pt[0] + offset[0], 0) * st.strides[0] +
        check(st.origin[1] + pt[1] + offset[1], 1) * st.strides[1] +
        check(st.origin[2] + pt[2] + offset[2] + dk(), 2) * st.strides[2];
    }
    return () => {
      let idx = 0;
      for (let a = 0; a < n; a++) {
        const ax = st.axes[a];
        idx += check(st.origin[a] + pt[ax] + offset[ax] + (ax === 2 ? dk() : 0), a) * st.strides[a];
      }
      return idx;
    };
  }

  private compileStmts(stmts: Stmt[]): () => void {
    const fns = stmts.map((s) => this.compileStmt(s));
    if (fns.length === 1) return fns[0];
    return () => {
      for (const f of fns) f();
    };
  }

  private compileStmt(s: Stmt): () => void {
    this.stmtLoc = s.loc;
    switch (s.kind) {
      case 'assign': {
        const st = this.arrays.get(s.target)!;
        const dtype = st.decl.dtype;
        const data = s.data?.map((d) => () => d);
        if (s.kVar) {
          // the value first, then the checked level (the C++ code's order: orch::vk_write)
          const idx = this.index(s.target, [0, 0, s.kOffset ?? 0], this.compile(s.kVar), s.loc, data, 'written');
          const v = this.compile(s.value);
          return () => {
            const x = coerce(v(), dtype);
            st.data[idx()] = x;
          };
        }
        const idx = this.index(s.target, [0, 0, s.kOffset ?? 0], undefined, undefined, data);
        const v = this.compile(s.value);
        return () => {
          st.data[idx()] = coerce(v(), dtype);
        };
      }
      case 'if': {
        const c = this.compile(s.cond);
        const a = this.compileStmts(s.then);
        const b = this.compileStmts(s.else);
        return () => (c() ? a() : b());
      }
      case 'while': {
        const c = this.compile(s.cond);
        const body = this.compileStmts(s.body);
        const max = this.options.maxWhileIterations ?? DEFAULT_MAX_WHILE_ITERATIONS;
        return () => {
          let guard = 0;
          while (c()) {
            body();
            if (++guard > max) throw runtimeError(whileLimitMessage(this.launchName, max), s.loc, WHILE_LIMIT_HINT);
          }
        };
      }
      case 'let': {
        const cell = this.scalars.get(s.name);
        if (!cell) throw new Error(`interpreter: let of unknown local ${s.name}`);
        const v = this.compile(s.value);
        return () => {
          cell.v = coerce(v(), cell.dtype);
        };
      }
      case 'check':
        return this.compileCheck(s);
      case 'region': {
        const body = this.compileStmts(s.body);
        const pt = this.pt;
        const dom = this.domain;
        const bound = (b: { level: string; offset: number } | null, n: number, dflt: number) => (b === null ? dflt : b.level === 'start' ? b.offset : n + b.offset);
        return () => {
          for (const r of s.regions) {
            const ilo = bound(r.i.start, dom[0], -Infinity);
            const ihi = bound(r.i.end, dom[0], Infinity);
            const jlo = bound(r.j.start, dom[1], -Infinity);
            const jhi = bound(r.j.end, dom[1], Infinity);
            if (pt[0] >= ilo && pt[0] < ihi && pt[1] >= jlo && pt[1] < jhi) {
              body();
              return;
            }
          }
        };
      }
    }
  }

  private compileCheck(s: Extract<Stmt, { kind: 'check' }>): () => void {
    const st = this.arrays.get(s.target)!;
    const dk = s.kOffset ?? 0;
    const idx = this.index(s.target, [0, 0, dk], undefined, undefined, s.data?.map((d) => () => d));
    const c = s.check;
    const pt = this.pt;
    return () => {
      const v = st.data[idx()];
      const bad = c.test === 'nan' ? Number.isNaN(v) : v < c.threshold;
      if (!bad) return;
      const at = [...st.axes.map((ax, pos) => `${'ijk'[ax]}=${st.origin[pos] + pt[ax] + (ax === 2 ? dk : 0)}`), ...(s.data ?? []).map((x, d) => `d${d}=${x}`)].join(', ');
      const what = c.test === 'nan' ? 'is NaN' : `is ${v}, below ${c.threshold}`;
      const message = `debug check: ${s.target} ${what} at ${at} in program ${c.program}, stencil ${c.stencil} (${s.loc.file}:${s.loc.line})`;
      if (c.action === 'abort') throw debugCheckFailed(message, s.loc);
      this.debugReports++;
      if (this.debugReports <= 20) process.stderr.write(`${message}\n`);
    };
  }

  /** Failed checks reported in log mode during the last run. */
  debugReports = 0;

  compile(e: Expr): Ev {
    return compileExpr(e, this.scope);
  }
}

