import type { ArrayDecl, DType, Expr, Program, ScalarVar, SourceLoc } from '../../core/ir/types.js';
import { convert, cString } from './cText.js';
import { ExprEmitter } from './ExprEmitter.js';
import { HostShell } from './HostShell.js';
import { Identifiers } from './Identifiers.js';
import type { LoopStrategy } from './LoopStrategy.js';
import { PointEmitter } from './PointEmitter.js';
import { RegionScalars } from './regionScalars.js';
import { Writer } from './Writer.js';
import { loopOrderNotPermutation } from '../../core/diagnostics/configErrors.js';

export interface CppOptions {
  /** Loop nesting, outermost first: a permutation of 'IJK' (e.g. 'IJK', 'KJI', 'KIJ'). */
  loopOrder: string;
  openmp: boolean;
  /** Emit `#line` directives so compiler errors point at the user's .py lines. */
  lineDirectives: boolean;
  /** Name the generated .cpp is written under; `#line` resets point at it. Default `<symbol>.cpp`. */
  sourceFileName?: string;
  /** Iterations a stencil's `while` loop may run before the run fails (default 1e7, as the interpreter). */
  maxWhileIterations?: number;
  /** CPU: tiles of FORWARD/BACKWARD launches stage the fields they sweep (default false). */
  stageSweeps?: boolean;
  /** CPU: FORWARD/BACKWARD tiles are staged blocks of this many columns along J (sweepBlocks.ts; the CPU presets: 32, run where orch::sweep_blocks says they pay). */
  sweepBlock?: number | false;
  /** CPU: in a tile, the nests of a PARALLEL loop run fused point by point (the CPU presets: true). */
  fuseNests?: boolean;
  /** CPU, with fuseNests: nests with horizontal regions fuse too, their K loops versioned per region test (the CPU presets: true). */
  fuseRegions?: boolean;
  /** CPU: the vector width g++ should prefer where it compiles for AVX-512 (vectorWidth.ts; default: g++'s). */
  vectorWidth?: 128 | 256 | 512 | false;
  /** CPU: versions fill and commit row by row inside fused nests (streamedVersions.ts; default false). */
  streamVersions?: boolean;
  /** CPU: tiles where a loop's region-only nests run nothing run its other nests fused (regionSplit.ts; default false). */
  splitRegionTiles?: boolean;
  /** CPU: fused nests share one K loop where they can (true; false: one K loop per nest; a number: shared by at most that many nests, the CPU presets' 8). */
  jamLevels?: boolean | number;
  /** CPU: tiles share the domain evenly instead of the last one taking the remainder (tileCuts.ts; default false). */
  balancedTiles?: boolean;
}

/** What a point body needs to address arrays: the arrays hoisted by the current launch. */
export interface PointContext {
  hoisted: Map<string, ArrayDecl>;
  /** point-local scalars of the HLoop being emitted */
  locals: Map<string, DType>;
  /** origin expressions of the launch, for debug reports */
  origins: Record<string, Expr[]>;
  /** The launch can fail at a point: it reads at variable K offsets or has a bounded while loop (so it has a `vkerr`). */
  variableK: boolean;
  /** Tile-local arrays of fused nests that keep only a few rows: the axis rolled (0 I, 1 J) and the mask of a row's slot. */
  rolled?: Map<string, { axis: number; mask: number }>;
}

/**
 * One program's code generation: the state its parts share (the writer, identifiers,
 * declarations, where generation is) and the parts themselves. The host shell, point
 * statements and expressions are the same for every backend; the backend's loop
 * strategy (CPU loop nests, CUDA kernels) is made by `strategy` from this object.
 */
export class Codegen<L extends LoopStrategy = LoopStrategy> {
  /** Where code goes; a backend writing another file points it there for a while (`into`). */
  w = new Writer();
  readonly ids = new Identifiers();
  readonly arrays: Map<string, ArrayDecl>;
  readonly scalars: Map<string, ScalarVar>;
  /** The loop order, upper case. */
  readonly order: string;
  /** Source line of the point statement being generated, for run-time check messages. */
  stmtLoc: SourceLoc | undefined;
  /** The stencil of the launch being generated. */
  launchName = '';
  readonly ex: ExprEmitter;
  readonly points: PointEmitter;
  readonly loops: L;
  readonly shell: HostShell;
  /** Scalar reads: the parameters' own names, or copies inside a threaded region. */
  readonly regionScalars: RegionScalars;

  constructor(
    readonly program: Program,
    readonly opts: CppOptions,
    readonly symbol: string,
    strategy: (cg: Codegen) => L,
  ) {
    this.arrays = new Map(program.arrays.map((a) => [a.name, a]));
    this.scalars = new Map(program.scalars.map((s) => [s.name, s]));
    const order = opts.loopOrder.toUpperCase();
    if (order.length !== 3 || [...'IJK'].some((c) => !order.includes(c))) {
      throw loopOrderNotPermutation(opts.loopOrder);
    }
    this.order = order;
    this.regionScalars = new RegionScalars(this);
    this.ex = new ExprEmitter(this);
    this.points = new PointEmitter(this);
    this.loops = strategy(this);
    this.shell = new HostShell(this);
  }

  array(name: string): ArrayDecl {
    const a = this.arrays.get(name);
    if (!a) throw new Error(`program '${this.program.name}' references unknown array '${name}'`);
    return a;
  }

  /** A host expression (no point context) as int64. */
  int64(e: Expr): string {
    return convert(this.ex.expr(e, undefined), e.dtype, 'int64');
  }

  /** Emits `emit` under a `#line` pointing at `loc`, then maps back to the generated file. */
  mapped(loc: SourceLoc | undefined, emit: () => void): void {
    if (!this.opts.lineDirectives || !loc) return emit();
    this.w.directive(`#line ${Math.max(1, Math.trunc(loc.line))} ${cString(loc.file)}`);
    emit();
    this.w.reset();
  }

  /** Emits `emit` into `writer` instead of the current one. */
  into(writer: Writer, emit: () => void): void {
    const host = this.w;
    this.w = writer;
    try {
      emit();
    } finally {
      this.w = host;
    }
  }
}
