import { forEachPStmt } from './visit.js';
import type { AxisBound, CallbackDecl, Expr, HLoop, HostStmt, PStmt, Program, RegionAxis, StencilDef, Stmt, VLoop } from './types.js';

/**
 * The IR's text form, for --print-ir-after, the cache's ir.txt and pass fixtures.
 *
 *   program name(q: field<float64, IJK>, dt: float64)
 *     temporary tmp: float64[IJK] shape (q.shape[0], q.shape[1], q.shape[2])
 *     local nx: int64
 *     stencil s(...) { computation PARALLEL { interval [start, end) { ... } } }
 *     body {
 *       set nx = q.shape[0]
 *       launch s domain (nx, ny, nz) origins {q: (1, 0, 0)} transients [] {
 *         vloop PARALLEL k in [0, nz) { hloop i in [-1, nx + 1) j in [0, ny) { ... } }
 *       }
 *     }
 */

function num(v: number, dtype: string): string {
  if (dtype === 'float64' || dtype === 'float32') {
    if (Number.isNaN(v)) return 'nan';
    if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
    const s = String(v);
    return /[.eE]/.test(s) ? s : `${s}.0`;
  }
  return String(v);
}

export function printExpr(e: Expr): string {
  switch (e.kind) {
    case 'lit':
      return typeof e.value === 'boolean' ? (e.value ? 'True' : 'False') : e.dtype === 'float32' ? `${num(e.value, e.dtype)}f` : num(e.value, e.dtype);
    case 'field': {
      const data = e.data ? `[${e.data.map(printExpr).join(', ')}]` : '';
      if (e.kOffset) return `${e.name}[${e.offset[0]}, ${e.offset[1]}, ${e.offset[2]} + ${printExpr(e.kOffset)}]${data}`;
      return `${e.name}[${e.offset.join(', ')}]${data}`;
    }
    case 'scalar':
      return e.name;
    case 'shape':
      return `${e.name}.shape[${e.axis}]`;
    case 'kindex':
      return 'index(K)';
    case 'unary':
      return e.op === 'not' ? `(not ${printExpr(e.arg)})` : `(${e.op}${printExpr(e.arg)})`;
    case 'binary':
      return `(${printExpr(e.left)} ${e.op} ${printExpr(e.right)})`;
    case 'ternary':
      return `(${printExpr(e.then)} if ${printExpr(e.cond)} else ${printExpr(e.else)})`;
    case 'call':
      return `${e.fn}(${e.args.map(printExpr).join(', ')})`;
    case 'cast':
      return `${e.dtype}(${printExpr(e.arg)})`;
  }
}

function bound(b: AxisBound): string {
  const base = b.level === 'start' ? 'start' : 'end';
  return b.offset === 0 ? base : `${base}${b.offset > 0 ? '+' : ''}${b.offset}`;
}

function regionAxis(a: RegionAxis): string {
  return `${a.start ? bound(a.start) : ''}:${a.end ? bound(a.end) : ''}`;
}

/** `[0, 0, k]` of a write at a K offset, then `[d0, d1]` of a write to one data element. */
function writeAt(s: { kOffset?: number; kVar?: Expr; data?: number[] }): string {
  const k = s.kVar ? `[0, 0, ${s.kOffset ?? 0} + ${printExpr(s.kVar)}]` : s.kOffset || s.data ? `[0, 0, ${s.kOffset ?? 0}]` : '';
  return s.data ? `${k}[${s.data.join(', ')}]` : k;
}

/** `<dtype, AXES>` of a field, with its data dimensions: `<float64, IJK, (3, 2)>`, `<float64, (4)>` for a table. */
export function fieldType(f: { dtype: string; axes: string; dims?: number[] }): string {
  const dims = f.dims ? `(${f.dims.join(', ')})` : '';
  return `<${[f.dtype, f.axes, dims].filter((x) => x !== '').join(', ')}>`;
}

function stmts(list: Stmt[], ind: string, out: string[]): void {
  for (const s of list) {
    switch (s.kind) {
      case 'assign':
        out.push(`${ind}${s.target}${writeAt(s)} = ${printExpr(s.value)}`);
        break;
      case 'let':
        out.push(`${ind}let ${s.name} = ${printExpr(s.value)}`);
        break;
      case 'check':
        out.push(`${ind}check ${s.check.test}${s.check.test === 'negative' ? ` < ${s.check.threshold}` : ''} ${s.target}${writeAt(s)}`);
        break;
      case 'if':
        out.push(`${ind}if ${printExpr(s.cond)} {`);
        stmts(s.then, ind + '  ', out);
        if (s.else.length) {
          out.push(`${ind}} else {`);
          stmts(s.else, ind + '  ', out);
        }
        out.push(`${ind}}`);
        break;
      case 'while':
        out.push(`${ind}while ${printExpr(s.cond)} {`);
        stmts(s.body, ind + '  ', out);
        out.push(`${ind}}`);
        break;
      case 'region':
        out.push(`${ind}region${s.split ? ' split' : ''} ${s.regions.map((r) => `[${regionAxis(r.i)}, ${regionAxis(r.j)}]`).join(' | ')} {`);
        stmts(s.body, ind + '  ', out);
        out.push(`${ind}}`);
        break;
    }
  }
}

function printStencil(def: StencilDef, ind = ''): string {
  const out: string[] = [];
  const params = def.params.map((p) => {
    const f = def.fields.find((x) => x.name === p);
    if (f) return `${p}: field${fieldType(f)}`;
    return `${p}: ${def.scalars.find((x) => x.name === p)!.dtype}`;
  });
  out.push(`${ind}stencil ${def.name}(${params.join(', ')}) {`);
  for (const t of def.fields.filter((f) => f.role === 'temp')) out.push(`${ind}  temp ${t.name}: ${t.dtype}${t.axes === 'IJK' ? '' : `[${t.axes}]`}`);
  for (const c of def.computations) {
    out.push(`${ind}  computation ${c.order} {`);
    for (const iv of c.intervals) {
      const rt = iv.runtime ? ` runtime [${iv.runtime.lo ? printExpr(iv.runtime.lo) : '_'}, ${iv.runtime.hi ? printExpr(iv.runtime.hi) : '_'})` : '';
      out.push(`${ind}    interval [${bound(iv.start)}, ${bound(iv.end)})${rt} {`);
      stmts(iv.body, ind + '      ', out);
      out.push(`${ind}    }`);
    }
    out.push(`${ind}  }`);
  }
  out.push(`${ind}}`);
  return out.join('\n');
}

function hloop(h: HLoop, ind: string, out: string[]): void {
  const locals = h.locals?.length ? ` locals {${h.locals.map((l) => `${l.name}: ${l.dtype}`).join(', ')}}` : '';
  const grow = h.grow ? ` grow (${h.grow.join(', ')})` : '';
  out.push(`${ind}hloop i in [${printExpr(h.i.lo)}, ${printExpr(h.i.hi)}) j in [${printExpr(h.j.lo)}, ${printExpr(h.j.hi)})${grow}${locals} {`);
  stmts(h.body, ind + '  ', out);
  out.push(`${ind}}`);
}

function vloop(v: VLoop, ind: string, out: string[]): void {
  out.push(`${ind}vloop ${v.order} k in [${printExpr(v.k.lo)}, ${printExpr(v.k.hi)}) {`);
  for (const h of v.body) hloop(h, ind + '  ', out);
  out.push(`${ind}}`);
}

const tuple = (xs: Expr[]) => `(${xs.map(printExpr).join(', ')})`;

function pstmts(list: PStmt[], ind: string, out: string[]): void {
  for (const s of list) {
    switch (s.kind) {
      case 'call': {
        const args = [...Object.entries(s.fields).map(([k, v]) => `${k}=${v}`), ...Object.entries(s.scalars).map(([k, v]) => `${k}=${printExpr(v)}`)];
        const origins = Object.entries(s.origins).map(([k, v]) => `${k}: ${tuple(v)}`);
        out.push(`${ind}call ${s.stencil}(${args.join(', ')}) origin {${origins.join(', ')}} domain ${tuple(s.domain)}`);
        break;
      }
      case 'launch': {
        const origins = Object.entries(s.origins).map(([k, v]) => `${k}: ${tuple(v)}`);
        const local = s.tile?.local.map((l) => (l.zeroFill ? `${l.name} zeroed` : l.name)).join(', ');
        const versioned = s.tile?.versioned ? ` versioned [${s.tile.versioned.map((x) => `${x.name} via ${x.shadow}${x.fill ? '' : ' unfilled'}`).join(', ')}]` : '';
        const tile = s.tile ? ` tile ${[...s.tile.size, ...(s.tile.k ? [s.tile.k] : [])].join('x')} local [${local}]${versioned}` : '';
        out.push(`${ind}launch ${s.stencil} domain ${tuple(s.domain)} origins {${origins.join(', ')}} transients [${s.transients.join(', ')}]${tile} {`);
        for (const r of s.requires ?? []) out.push(`${ind}  require ${printExpr(r.cond)} else ${r.code} ${JSON.stringify(r.message)} ${tuple(r.args)}`);
        for (const v of s.loops) vloop(v, ind + '  ', out);
        out.push(`${ind}}`);
        break;
      }
      case 'set':
        out.push(`${ind}set ${s.name} = ${printExpr(s.value)}`);
        break;
      case 'for':
        out.push(`${ind}for ${s.var} in range(${printExpr(s.start)}, ${printExpr(s.stop)}, ${printExpr(s.step)}) {`);
        pstmts(s.body, ind + '  ', out);
        out.push(`${ind}}`);
        break;
      case 'while':
        out.push(`${ind}while ${printExpr(s.cond)} {`);
        pstmts(s.body, ind + '  ', out);
        out.push(`${ind}}`);
        break;
      case 'if':
        out.push(`${ind}if ${printExpr(s.cond)} {`);
        pstmts(s.then, ind + '  ', out);
        if (s.else.length) {
          out.push(`${ind}} else {`);
          pstmts(s.else, ind + '  ', out);
        }
        out.push(`${ind}}`);
        break;
      case 'callback':
        out.push(`${ind}callback ${s.callback}(${s.args.map(printExpr).join(', ')})${s.result ? ` -> ${s.result}` : ''}`);
        break;
      case 'halo':
        out.push(`${ind}halo ${s.phase} #${s.exchange} (${s.fields.join(', ')}) width ${s.width} halo ${s.halo}`);
        break;
    }
  }
}

function hostStmts(list: HostStmt[], ind: string, out: string[]): void {
  for (const s of list) {
    switch (s.kind) {
      case 'set':
        out.push(`${ind}set ${s.name} = ${printExpr(s.value)}`);
        break;
      case 'for':
        out.push(`${ind}for ${s.var} in range(${printExpr(s.start)}, ${printExpr(s.stop)}, ${printExpr(s.step)}) {`);
        hostStmts(s.body, ind + '  ', out);
        out.push(`${ind}}`);
        break;
      case 'while':
        out.push(`${ind}while ${printExpr(s.cond)} {`);
        hostStmts(s.body, ind + '  ', out);
        out.push(`${ind}}`);
        break;
      case 'if':
        out.push(`${ind}if ${printExpr(s.cond)} {`);
        hostStmts(s.then, ind + '  ', out);
        if (s.else.length) {
          out.push(`${ind}} else {`);
          hostStmts(s.else, ind + '  ', out);
        }
        out.push(`${ind}}`);
        break;
      case 'return':
        out.push(`${ind}return${s.value ? ` ${printExpr(s.value)}` : ''}`);
        break;
      case 'raise':
        out.push(`${ind}raise ${JSON.stringify(s.message)}`);
        break;
    }
  }
}

/** `callback name(a: float64, n: int64) -> int64 { ... }` (the host body, when orch can evaluate it). */
function printCallback(cb: CallbackDecl, ind: string): string {
  const head = `${ind}callback ${cb.name}(${cb.params.map((p) => `${p.name}: ${p.dtype}`).join(', ')}) -> ${cb.result ?? 'None'}`;
  if (!cb.host) return `${head} host-only`;
  const out = [`${head} {`];
  for (const s of cb.host.scalars) if (s.role === 'local') out.push(`${ind}  local ${s.name}: ${s.dtype}`);
  hostStmts(cb.host.body, ind + '  ', out);
  out.push(`${ind}}`);
  return out.join('\n');
}

export function printProgram(p: Program): string {
  const out: string[] = [];
  const params = p.params.map((prm) => {
    if (prm.kind === 'field') {
      const a = p.arrays.find((x) => x.name === prm.name)!;
      return `${prm.name}: field${fieldType(a)}`;
    }
    return `${prm.name}: ${p.scalars.find((x) => x.name === prm.name)!.dtype}`;
  });
  const ct = Object.entries(p.compiletime);
  out.push(`program ${p.name}(${params.join(', ')})${ct.length ? ` compiletime {${ct.map(([k, v]) => `${k} = ${v}`).join(', ')}}` : ''} {`);
  for (const a of p.arrays) {
    if (a.role === 'arg') continue;
    const pool = a.pool ? ` pool [${printExpr(a.pool.offset)}, ${printExpr(a.pool.end)})${a.pool.zeroFill ? ' zero' : ''}` : '';
    out.push(`  ${a.role} ${a.name}: ${a.dtype}[${a.axes}] shape ${tuple(a.shape ?? [])}${pool}`);
  }
  for (const s of p.scalars) if (s.role === 'local') out.push(`  local ${s.name}: ${s.dtype}`);
  const used = new Set<string>();
  forEachPStmt(p.body, (s) => {
    if (s.kind === 'call') used.add(s.stencil);
  });
  for (const name of Object.keys(p.stencils)) if (used.has(name)) out.push(printStencil(p.stencils[name], '  '));
  for (const cb of p.callbacks ?? []) out.push(printCallback(cb, '  '));
  out.push('  body {');
  pstmts(p.body, '    ', out);
  out.push('  }');
  out.push('}');
  return out.join('\n');
}
