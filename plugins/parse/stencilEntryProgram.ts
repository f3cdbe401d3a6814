import type { ArrayDecl, Expr, Program, ScalarVar, StencilDef } from '../../core/ir/types.js';

/** Wraps a stencil as an entry: its fields and scalars, plus its domain and per-field origins as runtime arguments. */
export function stencilEntryProgram(def: StencilDef): Program {
  const arrays: ArrayDecl[] = def.fields.filter((f) => f.role === 'api').map((f) => ({ name: f.name, dtype: f.dtype, axes: f.axes, ...(f.dims ? { dims: f.dims } : {}), role: 'arg', loc: def.loc }));
  const scalars: ScalarVar[] = def.scalars.map((s) => ({ name: s.name, dtype: s.dtype, role: 'arg' }));
  const params: Program['params'] = def.params.map((p) => ({ name: p, kind: def.fields.some((f) => f.name === p) ? 'field' : 'scalar' }));
  const taken = new Set(def.params);
  const fresh = (n: string) => {
    let x = n;
    while (taken.has(x)) x = `_${x}`;
    taken.add(x);
    return x;
  };
  const domain = (['I', 'J', 'K'] as const).map((ax) => {
    const name = fresh(`domain_${ax}`);
    scalars.push({ name, dtype: 'int64', role: 'arg' });
    params.push({ name, kind: 'scalar' });
    return { kind: 'scalar', name, dtype: 'int64' } as Expr;
  });
  const origins: Record<string, Expr[]> = {};
  for (const a of arrays) {
    origins[a.name] = [...a.axes].map((ax) => {
      const name = fresh(`origin_${a.name}_${ax}`);
      scalars.push({ name, dtype: 'int64', role: 'arg' });
      params.push({ name, kind: 'scalar' });
      return { kind: 'scalar', name, dtype: 'int64' } as Expr;
    });
  }
  return {
    name: def.name,
    entryKind: 'stencil',
    loc: def.loc,
    params,
    arrays,
    scalars,
    compiletime: {},
    stencils: { [def.name]: def },
    callbacks: [],
    body: [
      {
        kind: 'call',
        stencil: def.name,
        fields: Object.fromEntries(arrays.map((a) => [a.name, a.name])),
        scalars: Object.fromEntries(def.scalars.map((s) => [s.name, { kind: 'scalar', name: s.name, dtype: s.dtype } as Expr])),
        origins,
        domain: [domain[0], domain[1], domain[2]],
        loc: def.loc,
      },
    ],
  };
}
