import type { ArrayDecl, DType, Expr, Program, ScalarVar, SourceLoc } from '../../core/ir/types.js';
import type { CodegenOptions } from '../../core/config/types.js';
import { convert, cString } from './cText.js';
import { ExprEmitter } from './ExprEmitter.js';
import { HostShell } from './HostShell.js';
import { Identifiers } from './Identifiers.js';
import type { LoopStrategy } from './LoopStrategy.js';
import { PointEmitter } from './PointEmitter.js';
import { RegionScalars } from './regionScalars.js';
import { Writer } from './Writer.js';
import { loopOrderNotPermutation } from '../../core/diagnostics/configErrors.js';

/**
 * What the generator reads of the config's codegen options (their meaning and defaults are
 * documented once, in core/config/types.ts), plus the name of the file it writes.
 */
export interface CppOptions
  extends Pick<
    CodegenOptions,
    | 'loopOrder'
    | 'openmp'
    | 'lineDirectives'
    | 'maxWhileIterations'
    | 'stageSweeps'
    | 'sweepBlock'
    | 'fuseNests'
    | 'fuseRegions'
    | 'vectorWidth'
    | 'streamVersions'
    | 'rollVersions'
    | 'splitRegionTiles'
    | 'jamLevels'
    | 'fusedStrip'
    | 'balancedTiles'
    | 'streamOutputs'
    | 'prefetchColumns'
    | 'alignTileColumns'
    | 'recomputeTemporaries'
  > {
  /** Name the generated .cpp is written under; `#line` resets point at it. Default `<symbol>.cpp`. */
  sourceFileName?: string;
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
  /** Outputs of the fused loop being emitted that go through a column buffer (streamedOutputs.ts): name -> the buffer, indexed by k - klo. */
  streamed?: Map<string, string>;
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
