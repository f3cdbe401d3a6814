import { didYouMean, fail } from '../diagnostics.js';
import type { Axes, CallbackDecl, DType, Program } from '../ir/types.js';
import type { NDArray } from './ndarray.js';
import { fieldUpperBoundaries, touchedFields } from '../ir/fieldBoundaries.js';
import { allocate } from './ndarray.js';
import { namesRead } from '../ir/uses.js';

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
      fail('E_ARG_UNKNOWN', `${program.name} has no field argument '${name}'`, { hint: guess ? `did you mean '${guess}'?` : `fields: ${fieldNames.join(', ')}` });
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
    if (!a) fail('E_ARG_MISSING', `missing field argument '${name}' of ${program.name}`, { hint: `pass --in ${name}=path.npy` });
    const decl = program.params.find((x) => x.name === name) as { dtype: DType; axes: Axes; dims?: number[] };
    if (a.dtype !== decl.dtype) fail('E_ARG_DTYPE', `field '${name}' has dtype ${a.dtype}, but ${program.name} declares ${decl.dtype}`, { hint: `save it as ${decl.dtype}` });
    const dims = decl.dims ?? [];
    const kind = `${decl.axes ? `a ${decl.axes} field` : 'a GlobalTable'}${dims.length ? ` with data dimensions ${fmt(dims)}` : ''}`;
    if (a.shape.length !== decl.axes.length + dims.length) {
      fail('E_ARG_SHAPE', `field '${name}' has ${a.shape.length} dimensions (shape ${fmt(a.shape)}), but it is ${kind}`, {
        hint: `pass an array with ${decl.axes.length + dims.length} dimension(s)${dims.length ? `: ${decl.axes.length} spatial, then ${fmt(dims)}` : ''}`,
      });
    }
    if (a.shape.slice(decl.axes.length).some((n, d) => n !== dims[d])) {
      fail('E_ARG_SHAPE', `field '${name}' has shape ${fmt(a.shape)}, but it is ${kind}`, { hint: `its last ${dims.length} dimension(s) must be ${fmt(dims)}` });
    }
    args[name] = a;
  }
  if (program.entryKind === 'stencil') return stencilArgs(program, spec, args);
  const scalarNames = program.params.filter((p) => p.kind === 'scalar').map((p) => p.name);
  for (const name of Object.keys(spec.scalars)) {
    if (!scalarNames.includes(name)) {
      const guess = didYouMean(name, scalarNames);
      fail('E_ARG_UNKNOWN', `${program.name} has no scalar argument '${name}'`, { hint: guess ? `did you mean '${guess}'?` : `scalars: ${scalarNames.join(', ') || 'none'}` });
    }
  }
  for (const name of scalarNames) {
    if (spec.scalars[name] === undefined) fail('E_ARG_MISSING', `missing scalar argument '${name}' of ${program.name}`, { hint: `pass --scalars '{"${name}": ...}'` });
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
      fail('E_USAGE_ORIGIN', `origin ${fmt(origin)} has ${origin.length} entries, but the fields have axes ${axes}`, { hint: `give one index per axis: --origin ${zeros.join(',')}` });
    }
    return;
  }
  const names = api.map((f) => f.name);
  for (const [name, value] of Object.entries(origin)) {
    if (name === '_all_') {
      if (value.length !== 3 && value.length !== widest) {
        fail('E_USAGE_ORIGIN', `origin _all_ ${fmt(value)} has ${value.length} entries, but the fields have axes ${axes}`, { hint: `give one index per axis: {"_all_": [${zeros.join(', ')}]}` });
      }
      continue;
    }
    if (!names.includes(name)) {
      const guess = didYouMean(name, names);
      fail('E_USAGE_ORIGIN', `origin for '${name}', which is no field of the stencil`, { hint: guess ? `did you mean '${guess}'?` : `fields: ${names.join(', ')}` });
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
      fail('E_ARG_UNKNOWN', `stencil ${def.name} has no scalar argument '${name}'`, { hint: guess ? `did you mean '${guess}'?` : `scalars: ${scalarNames.join(', ') || 'none'}` });
    }
  }
  for (const name of scalarNames) {
    // GT4Py lets a call leave out a scalar the stencil never reads (a `=None` default)
    if (spec.scalars[name] === undefined && def.unusedScalars?.includes(name)) {
      args[name] = 0;
      continue;
    }
    if (spec.scalars[name] === undefined) fail('E_ARG_MISSING', `missing scalar argument '${name}' of stencil ${def.name}`, { hint: `pass --scalars '{"${name}": ...}'` });
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
        if (own.length !== axes.length) fail('E_USAGE_ORIGIN', `origin of '${name}' has ${own.length} entries, but it is a ${axes} field`, { hint: `give one index per axis of ${name}` });
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
        fail('E_DOMAIN_EMPTY', `field '${limiting}' of shape ${fmt(a.shape)} at origin ${fmt(origins[limiting])}${past} leaves no points along ${'IJK'[ax]}, so the compute domain is empty`, {
          hint: `pass fields with at least one point per axis beyond their origin, as GT4Py requires`,
        });
      }
      return Number.isFinite(n) ? n : 1;
    });
  }
  if (domain.length !== 3 || domain.some((d) => !Number.isInteger(d) || d < 0)) fail('E_USAGE_DOMAIN', `domain must be three non-negative integers, got ${JSON.stringify(domain)}`, { hint: 'write --domain NX,NY,NZ' });
  const zero = domain.indexOf(0);
  if (zero >= 0) {
    fail('E_USAGE_DOMAIN', `domain ${fmt(domain)} has no points along ${'IJK'[zero]}; GT4Py refuses an empty compute domain`, { hint: 'give every axis of --domain at least one point' });
  }
  // the fields must hold the domain from their origin (extents are checked by the backend).
  // An origin may be negative, as in GT4Py: legal when every access the stencil makes stays
  // inside the array, which the backends check per access before (compiled) or as (interpreter) it runs.
  for (const f of api) {
    if (f.untouched) continue;
    const a = args[f.name] as NDArray;
    const need = [...f.axes].map((ax, pos) => origins[f.name][pos] + domain![('IJK' as string).indexOf(ax)]);
    if (need.some((n, pos) => n > a.shape[pos])) {
      fail('E_DOMAIN_FIT', `domain ${fmt(domain)} at origin ${fmt(origins[f.name])} needs field '${f.name}' to have shape at least ${fmt(need)}, but it has shape ${fmt(a.shape)}`, {
        hint: 'shrink --domain or move --origin so the domain fits inside every field',
      });
    }
  }
  def.domainParams.forEach((p, ax) => (args[p] = domain![ax]));
  for (const f of api) def.originParams[f.name].forEach((p, pos) => (args[p] = origins[f.name][pos]));
  return args;
}
