import { didYouMean } from '../diagnostics.js';
import type { Axes, CallbackDecl, DType, Program } from '../ir/types.js';
import type { NDArray } from './ndarray.js';
import { fieldUpperBoundaries, touchedFields } from '../ir/fieldBoundaries.js';
import { allocate } from './ndarray.js';
import { namesRead } from '../ir/uses.js';
import { domainEmptyAtOrigin, domainOriginTooLarge, inputFieldDtype, inputFieldMissing, inputFieldRank, inputFieldShape, inputScalarMissing, noFieldArgument, noScalarArgument, stencilNoScalarArgument, stencilScalarMissing } from '../diagnostics/runtimeErrors.js';
import { domainEmpty, domainNotThreeSizes, originAllLengthMismatch, originFieldLengthMismatch, originForUnknownField, originLengthMismatch } from '../diagnostics/usageErrors.js';

/**
 * What a caller needs to know about an entry, stored in build-info.json so a cache hit
 * can bind arguments without the IR.
 */
export interface EntryInterface {
  name: string;
  entryKind: 'program' | 'stencil';
  /** `dims`: the data dimensions of a field, stored after its spatial axes. */
  params: { name: string; kind: 'field' | 'scalar'; dtype: DType; axes?: Axes; dims?: number[] }[];
  /** Host callbacks (ABI index order), with the bodies orch's own hosts can evaluate. */
  callbacks?: CallbackDecl[];
  /** Stencil entries: the user's scalars, and the generated domain/origin parameters. */
  stencil?: {
    scalars: string[];
    /** The user's scalars the stencil never reads (after compile-time folding): a call may leave them out. */
    unusedScalars?: string[];
    /** `upper`: how far past the domain's end the stencil touches the field, per axis (GT4Py's boundary), for the default domain. */
    /** `untouched`: the stencil never reads or writes the field (after compile-time folding), so a call may leave it out. */
    fields: { name: string; axes: Axes; upper?: number[]; untouched?: boolean }[];
    domainParams: string[];
    originParams: Record<string, string[]>;
  };
}

export function entryInterface(program: Program): EntryInterface {
  const params = program.params.map((p) => {
    if (p.kind === 'field') {
      const a = program.arrays.find((x) => x.name === p.name)!;
      return { name: p.name, kind: 'field' as const, dtype: a.dtype, axes: a.axes, ...(a.dims ? { dims: a.dims } : {}) };
    }
    return { name: p.name, kind: 'scalar' as const, dtype: program.scalars.find((x) => x.name === p.name)!.dtype };
  });
  const out: EntryInterface = { name: program.name, entryKind: program.entryKind, params, callbacks: program.callbacks ?? [] };
  if (program.entryKind === 'stencil') {
    const def = Object.values(program.stencils)[0];
    const scalars = def.scalars.map((x) => x.name);
    const fields = def.fields.filter((f) => f.role === 'api').map((f) => ({ name: f.name, axes: f.axes }));
    // generated order (stencilEntryProgram): domain_I/J/K, then origin_<field>_<axis> per field
    const extra = params.filter((p) => p.kind === 'scalar' && !scalars.includes(p.name)).map((p) => p.name);
    const originParams: Record<string, string[]> = {};
    let n = 3;
    for (const f of fields) originParams[f.name] = extra.slice(n, (n += f.axes.length));
    const domainParams = extra.slice(0, 3);
    const upper = fieldUpperBoundaries(program, domainParams, originParams);
    const touched = touchedFields(program);
    const described = fields.map((f) => ({ ...f, upper: upper[f.name], ...(touched.has(f.name) ? {} : { untouched: true }) }));
    const read = namesRead(program).scalars;
    const unusedScalars = scalars.filter((x) => !read.has(x));
    out.stencil = { scalars, ...(unusedScalars.length ? { unusedScalars } : {}), fields: described, domainParams, originParams };
  }
  return out;
}

/**
 * Builds an entry's argument record from what a user gives at the call: fields by name,
 * scalars by name, and for stencil entries GT4Py's `origin=` / `domain=`.
 */
export interface CallSpec {
  fields: Record<string, NDArray>;
  scalars: Record<string, number | boolean>;
  /** One origin for all fields, or per field (`_all_` for the rest), as GT4Py takes it. */
  origin?: number[] | Record<string, number[]>;
  domain?: number[];
}

export type EntryArgs = Record<string, NDArray | number | boolean>;

export function buildEntryArgs(program: EntryInterface, spec: CallSpec): EntryArgs {
  const args: EntryArgs = {};
  const fieldNames = program.params.filter((p) => p.kind === 'field').map((p) => p.name);
  for (const name of Object.keys(spec.fields)) {
    if (!fieldNames.includes(name)) {
      const guess = didYouMean(name, fieldNames);
      throw noFieldArgument(program.name, name, guess ? `did you mean '${guess}'?` : `fields: ${fieldNames.join(', ')}`);
    }
  }
  for (const name of fieldNames) {
    const decl0 = program.params.find((x) => x.name === name) as { dtype: DType; axes: Axes; dims?: number[] };
    if (!spec.fields[name] && program.stencil?.fields.find((f) => f.name === name)?.untouched) {
      // GT4Py lets a call leave out a field the stencil never touches: a one-point stand-in
      args[name] = allocate(decl0.dtype, [...decl0.axes].map(() => 1).concat(decl0.dims ?? []));
      continue;
    }
    const a = spec.fields[name];
    if (!a) throw inputFieldMissing(name, program.name);
    const decl = program.params.find((x) => x.name === name) as { dtype: DType; axes: Axes; dims?: number[] };
    if (a.dtype !== decl.dtype) throw inputFieldDtype(name, a.dtype, program.name, decl.dtype);
    const dims = decl.dims ?? [];
    const kind = `${decl.axes ? `a ${decl.axes} field` : 'a GlobalTable'}${dims.length ? ` with data dimensions ${fmt(dims)}` : ''}`;
    if (a.shape.length !== decl.axes.length + dims.length) {
      throw inputFieldRank(name, a.shape.length, fmt(a.shape), kind, decl.axes.length + dims.length, dims.length ? `: ${decl.axes.length} spatial, then ${fmt(dims)}` : '');
    }
    if (a.shape.slice(decl.axes.length).some((n, d) => n !== dims[d])) {
      throw inputFieldShape(name, fmt(a.shape), kind, dims.length, fmt(dims));
    }
    args[name] = a;
  }
  if (program.entryKind === 'stencil') return stencilArgs(program, spec, args);
  const scalarNames = program.params.filter((p) => p.kind === 'scalar').map((p) => p.name);
  for (const name of Object.keys(spec.scalars)) {
    if (!scalarNames.includes(name)) {
      const guess = didYouMean(name, scalarNames);
      throw noScalarArgument(program.name, name, guess ? `did you mean '${guess}'?` : `scalars: ${scalarNames.join(', ') || 'none'}`);
    }
  }
  for (const name of scalarNames) {
    if (spec.scalars[name] === undefined) throw inputScalarMissing(name, program.name);
    args[name] = spec.scalars[name];
  }
  return args;
}

/**
 * GT4Py's origin= forms: one index per axis I, J, K for every field (an IJ-only stencil may
 * give two), or per field names of fields the stencil takes (`_all_` for the rest).
 */
function checkOrigin(origin: CallSpec['origin'], api: { name: string; axes: Axes }[]): void {
  if (!origin) return;
  const widest = Math.max(...api.map((f) => f.axes.length));
  const axes = widest === 3 ? 'I, J, K' : api.find((f) => f.axes.length === widest)!.axes.split('').join(', ');
  const zeros = [...Array(widest)].map(() => 0);
  if (Array.isArray(origin)) {
    if (origin.length !== 3 && origin.length !== widest) {
      throw originLengthMismatch(fmt(origin), origin.length, axes, zeros.join(','));
    }
    return;
  }
  const names = api.map((f) => f.name);
  for (const [name, value] of Object.entries(origin)) {
    if (name === '_all_') {
      if (value.length !== 3 && value.length !== widest) {
        throw originAllLengthMismatch(fmt(value), value.length, axes, zeros.join(', '));
      }
      continue;
    }
    if (!names.includes(name)) {
      const guess = didYouMean(name, names);
      throw originForUnknownField(name, guess ? `did you mean '${guess}'?` : `fields: ${names.join(', ')}`);
    }
  }
}

function fmt(shape: number[]): string {
  return `(${shape.join(', ')})`;
}

function stencilArgs(program: EntryInterface, spec: CallSpec, args: EntryArgs): EntryArgs {
  const def = { name: program.name, ...program.stencil! };
  const scalarNames = def.scalars;
  for (const name of Object.keys(spec.scalars)) {
    if (!scalarNames.includes(name)) {
      const guess = didYouMean(name, scalarNames);
      throw stencilNoScalarArgument(def.name, name, guess ? `did you mean '${guess}'?` : `scalars: ${scalarNames.join(', ') || 'none'}`);
    }
  }
  for (const name of scalarNames) {
    // GT4Py lets a call leave out a scalar the stencil never reads (a `=None` default)
    if (spec.scalars[name] === undefined && def.unusedScalars?.includes(name)) {
      args[name] = 0;
      continue;
    }
    if (spec.scalars[name] === undefined) throw stencilScalarMissing(name, def.name);
    args[name] = spec.scalars[name];
  }
  const api = def.fields;
  checkOrigin(spec.origin, api);
  const originOf = (name: string, axes: string): number[] => {
    const o = spec.origin;
    let full: number[] | undefined;
    if (Array.isArray(o)) full = o;
    else if (o) {
      const own = o[name];
      if (own) {
        if (own.length !== axes.length) throw originFieldLengthMismatch(name, own.length, axes);
        return own;
      }
      full = o._all_;
    }
    full = full ?? [0, 0, 0];
    if (full.length === axes.length && axes.length !== 3) return full;
    return [...axes].map((ax) => full![('IJK' as string).indexOf(ax)] ?? 0);
  };
  const origins: Record<string, number[]> = {};
  for (const f of api) origins[f.name] = originOf(f.name, f.axes);
  let domain = spec.domain;
  if (!domain) {
    // GT4Py's default: as large as every field allows from its origin, less the part of the
    // field the stencil touches past the domain's end (entries built before orch knew that: 0)
    domain = [0, 1, 2].map((ax) => {
      let n = Infinity;
      let limiting: string | undefined;
      let limitingUpper = 0;
      for (const f of api) {
        const pos = f.axes.indexOf('IJK'[ax]);
        if (pos < 0 || f.untouched) continue;
        const room = (args[f.name] as NDArray).shape[pos] - origins[f.name][pos] - (f.upper?.[pos] ?? 0);
        if (room < n) [n, limiting, limitingUpper] = [room, f.name, f.upper?.[pos] ?? 0];
      }
      // GT4Py refuses an empty compute domain ("Compute domain contains zero sizes")
      if (limiting && n <= 0) {
        const a = args[limiting] as NDArray;
        const past = limitingUpper ? `, less the ${limitingUpper} point(s) the stencil reads past the domain's end,` : '';
        throw domainEmptyAtOrigin(limiting, fmt(a.shape), fmt(origins[limiting]), past, 'IJK'[ax]);
      }
      return Number.isFinite(n) ? n : 1;
    });
  }
  if (domain.length !== 3 || domain.some((d) => !Number.isInteger(d) || d < 0)) throw domainNotThreeSizes(JSON.stringify(domain));
  const zero = domain.indexOf(0);
  if (zero >= 0) {
    throw domainEmpty(fmt(domain), 'IJK'[zero]);
  }
  // the fields must hold the domain from their origin (extents are checked by the backend).
  // An origin may be negative, as in GT4Py: legal when every access the stencil makes stays
  // inside the array, which the backends check per access before (compiled) or as (interpreter) it runs.
  for (const f of api) {
    if (f.untouched) continue;
    const a = args[f.name] as NDArray;
    const need = [...f.axes].map((ax, pos) => origins[f.name][pos] + domain![('IJK' as string).indexOf(ax)]);
    if (need.some((n, pos) => n > a.shape[pos])) {
      throw domainOriginTooLarge(fmt(domain), fmt(origins[f.name]), f.name, fmt(need), fmt(a.shape));
    }
  }
  def.domainParams.forEach((p, ax) => (args[p] = domain![ax]));
  for (const f of api) def.originParams[f.name].forEach((p, pos) => (args[p] = origins[f.name][pos]));
  return args;
}
