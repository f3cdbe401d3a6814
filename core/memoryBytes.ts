import type { MemoryReport } from './EntryBuild.js';
import { lex, Tokens } from './ir/lex.js';
import { evaluate } from './ir/evaluate.js';
import { ExprParser } from './ir/parseExpr.js';
import type { Expr } from './ir/types.js';

/** One array of a memory report, in bytes for a given domain (undefined: not known from the domain alone). */
export interface ArrayBytes {
  name: string;
  role: string;
  dtype: string;
  pooled: boolean;
  storage?: 'host' | 'device';
  /** A per-tile array: its bytes are per tile and thread, not counted in the totals. */
  tile?: string;
  shape?: number[];
  bytes?: number;
}

/** The memory report evaluated for arguments of a given shape. */
export interface MemoryBytes {
  /** NX, NY, NZ: each argument's extent along I, J and K. */
  domain: number[];
  arrays: ArrayBytes[];
  totals: {
    /** caller-owned arguments */
    argBytes?: number;
    /** the temporary and transient arenas (pooled arrays, alignment included) */
    temporaryArenaBytes?: number;
    transientArenaBytes?: number;
    /** temporaries a backend without arenas allocates one by one */
    unpooledBytes?: number;
    /** orch's own allocations: the arenas and the unpooled temporaries */
    orchBytes?: number;
    totalBytes?: number;
  };
}

/** Parses one printed IR expression of a memory report (shapes, offsets, arena ends). */
function parse(text: string): Expr | undefined {
  try {
    const t = new Tokens(lex(text, '<memory.json>'), '<memory.json>');
    return new ExprParser(t).parse({ field: () => 'float64', scalar: () => undefined });
  } catch {
    return undefined;
  }
}

const AXIS: Record<string, number> = { I: 0, J: 1, K: 2 };

/**
 * The symbolic memory report (plugins/analyze) for arguments of extent NX, NY, NZ along
 * I, J and K: every array's bytes, and the totals (pooled arrays counted once, as the
 * arena that holds them, padding included).
 */
export function memoryBytes(report: MemoryReport, domain: number[]): MemoryBytes {
  const args = new Map(report.arrays.filter((a) => a.role === 'arg').map((a) => [a.name, a]));
  const shapeOf = (name: string): number[] | undefined => {
    const a = args.get(name);
    if (!a) return undefined;
    const dims = [...(a.axes ?? '?')].map((c) => domain[AXIS[c] ?? -1]);
    return dims.every((d) => d !== undefined) ? dims : undefined;
  };
  // memory.json of older entries may lack the peak or the axes: those sizes stay unknown
  const value = (text: string | undefined) => {
    const e = text === undefined ? undefined : parse(text);
    return e ? evaluate(e, { shape: (name, axis) => shapeOf(name)?.[axis] }) : undefined;
  };
  const arrays: ArrayBytes[] = report.arrays.map((a) => {
    const shape = a.shape.map(value);
    const known = shape.every((d) => d !== undefined) ? (shape as number[]) : undefined;
    return { name: a.name, role: a.role, dtype: a.dtype, pooled: a.pooled, storage: a.storage, tile: a.tile, shape: known, bytes: known ? known.reduce((x, y) => x * y, 1) * a.bytesPerElement : undefined };
  });
  const sum = (xs: ArrayBytes[]) => xs.reduce<number | undefined>((t, a) => (t === undefined || a.bytes === undefined ? undefined : t + a.bytes), 0);
  const argBytes = sum(arrays.filter((a) => a.role === 'arg'));
  const unpooledBytes = sum(arrays.filter((a) => a.role !== 'arg' && !a.pooled && !a.tile));
  const temporaryArenaBytes = value(report.peak?.temporaryArenaBytes);
  const transientArenaBytes = value(report.peak?.transientArenaBytes);
  const orchBytes = temporaryArenaBytes === undefined || transientArenaBytes === undefined || unpooledBytes === undefined ? undefined : temporaryArenaBytes + transientArenaBytes + unpooledBytes;
  const totalBytes = orchBytes === undefined || argBytes === undefined ? undefined : orchBytes + argBytes;
  return { domain, arrays, totals: { argBytes, temporaryArenaBytes, transientArenaBytes, unpooledBytes, orchBytes, totalBytes } };
}
