import { isIntDType } from './dtypes.js';
import type { CallbackDecl, Expr, HostStmt, PStmt, Program, StencilDef, Stmt } from './types.js';

/**
 * What is wrong with the data index of an access to an array with data dimensions `dims`
 * (null when nothing): every data dimension indexed, constants within their extents.
 */
export function dataIndexProblem(name: string, dims: readonly number[] | undefined, data: readonly (Expr | number)[] | undefined): string | null {
  const n = dims?.length ?? 0;
  if ((data?.length ?? 0) !== n) return `'${name}' has ${n} data dimension(s) but is indexed with ${data?.length ?? 0}`;
  for (let d = 0; d < n; d++) {
    const x = data![d];
    const v = typeof x === 'number' ? x : x.kind === 'lit' ? Number(x.value) : null;
    if (typeof x !== 'number' && !isIntDType(x.dtype)) return `data index ${d} of '${name}' is ${x.dtype}, not an integer`;
    if (v !== null && (!Number.isInteger(v) || v < 0 || v >= dims![d])) return `data index ${d} of '${name}' is ${v}, outside [0, ${dims![d]})`;
  }
  return null;
}
import { forEachHostStmt, forEachPStmt, forEachStmt } from './visit.js';
import { launchWrites } from './launchWrites.js';

/**
 * IR verification, run between passes: every name resolves, dtypes agree, and the
 * program is in a consistent stage (no stencil `call` left once a `launch` exists in
 * expanded form). Returns the problems found; an empty list means the IR verifies.
 */
export function verifyProgram(p: Program): string[] {
  const errors: string[] = [];
  const arrays = new Map(p.arrays.map((a) => [a.name, a]));
  const scalars = new Map(p.scalars.map((s) => [s.name, s]));
  const seen = new Set<string>();
  for (const n of [...p.arrays.map((a) => a.name), ...p.scalars.map((s) => s.name)]) {
    if (seen.has(n)) errors.push(`name '${n}' is declared twice`);
    seen.add(n);
  }
  for (const prm of p.params) {
    if (prm.kind === 'field' && arrays.get(prm.name)?.role !== 'arg') errors.push(`parameter '${prm.name}' has no argument array`);
    if (prm.kind === 'scalar' && scalars.get(prm.name)?.role !== 'arg') errors.push(`parameter '${prm.name}' has no argument scalar`);
  }
  for (const a of p.arrays) {
    if (a.role !== 'arg' && (!a.shape || a.shape.length !== a.axes.length)) errors.push(`array '${a.name}' needs one shape entry per axis`);
  }
  const hostExpr = (e: Expr, where: string) =>
    checkExpr(e, where, errors, (name) => {
      if (name.kind === 'field') return `field access '${name.name}' outside a stencil`;
      if (name.kind === 'kindex') return 'the K index read outside a stencil';
      if (name.kind === 'scalar' && !scalars.has(name.name)) return `unknown scalar '${name.name}'`;
      if (name.kind === 'shape' && !arrays.has(name.name)) return `unknown array '${name.name}'`;
      return null;
    });
  const pointStmts = (list: Stmt[], where: string, locals: Map<string, string> = new Map()) =>
    forEachStmt(list, (s) => {
      if (s.kind === 'let') {
        const dt = locals.get(s.name);
        if (!dt) errors.push(`${where}: let of '${s.name}', which is not a local of its loop nest`);
        else if (dt !== s.value.dtype) errors.push(`${where}: local ${s.name} is ${dt} but is assigned ${s.value.dtype}`);
        pointExpr(s.value, where, locals);
      } else if (s.kind === 'check') {
        const a = arrays.get(s.target);
        if (!a) errors.push(`${where}: check of unknown array '${s.target}'`);
        else {
          const bad = dataIndexProblem(s.target, a.dims, s.data);
          if (bad) errors.push(`${where}: ${bad}`);
        }
      } else if (s.kind === 'assign') {
        const a = arrays.get(s.target);
        if (!a) errors.push(`${where}: assignment to unknown array '${s.target}'`);
        else if (a.dtype !== s.value.dtype) errors.push(`${where}: ${s.target} is ${a.dtype} but is assigned ${s.value.dtype}`);
        else if ((s.kOffset || s.kVar) && !a.axes.includes('K')) errors.push(`${where}: ${s.target} (${a.axes}) is written at a K offset but has no K axis`);
        else if (dataIndexProblem(s.target, a.dims, s.data)) errors.push(`${where}: ${dataIndexProblem(s.target, a.dims, s.data)}`);
        if (s.kVar) {
          if (!isIntDType(s.kVar.dtype)) errors.push(`${where}: variable K offset of the write of '${s.target}' is ${s.kVar.dtype}, not an integer`);
          pointExpr(s.kVar, where, locals);
        }
        pointExpr(s.value, where, locals);
      } else if (s.kind === 'if' || s.kind === 'while') pointExpr(s.cond, where, locals);
    });
  const pointExpr = (e: Expr, where: string, locals: Map<string, string>) =>
    checkExpr(e, where, errors, (x) => {
      if (x.kind === 'scalar' && locals.has(x.name)) return locals.get(x.name) === x.dtype ? null : `local '${x.name}' read as ${x.dtype}`;
      if (x.kind === 'field') {
        const a = arrays.get(x.name);
        if (!a) return `unknown array '${x.name}'`;
        if (a.dtype !== x.dtype) return `'${x.name}' read as ${x.dtype} but is ${a.dtype}`;
        if (x.kOffset && !a.axes.includes('K')) return `'${x.name}' (${a.axes}) is read at a variable K offset but has no K axis`;
        const bad = dataIndexProblem(x.name, a.dims, x.data);
        if (bad) return bad;
      }
      if (x.kind === 'scalar' && !scalars.has(x.name)) return `unknown scalar '${x.name}'`;
      return null;
    });
  const walk = (list: PStmt[]) =>
    forEachPStmt(list, (s) => {
      switch (s.kind) {
        case 'call': {
          const def = p.stencils[s.stencil];
          if (!def) {
            errors.push(`call of unknown stencil '${s.stencil}'`);
            break;
          }
          errors.push(...verifyStencil(def));
          for (const [param, arr] of Object.entries(s.fields)) {
            const a = arrays.get(arr);
            if (!a) errors.push(`call ${s.stencil}: '${param}' bound to unknown array '${arr}'`);
            else if (String(def.fields.find((f) => f.name === param)?.dims ?? '') !== String(a.dims ?? '')) {
              errors.push(`call ${s.stencil}: '${param}' and array '${arr}' have different data dimensions`);
            }
          }
          Object.values(s.scalars).forEach((e) => hostExpr(e, `call ${s.stencil}`));
          s.domain.forEach((e) => hostExpr(e, `call ${s.stencil}`));
          break;
        }
        case 'launch':
          s.domain.forEach((e) => hostExpr(e, `launch ${s.stencil}`));
          for (const r of s.requires ?? []) {
            hostExpr(r.cond, `launch ${s.stencil}`);
            if (r.cond.dtype !== 'bool') errors.push(`launch ${s.stencil}: requirement ${r.code} is not a bool condition`);
            r.args.forEach((a) => hostExpr(a, `launch ${s.stencil}`));
          }
          for (const t of s.transients) if (arrays.get(t)?.role !== 'transient') errors.push(`launch ${s.stencil}: '${t}' is not a transient`);
          if (s.tile) {
            if (![...s.tile.size, s.tile.k ?? 1].every((n) => Number.isInteger(n) && n > 0)) errors.push(`launch ${s.stencil}: tile size ${s.tile.size.join('x')} is not positive integers`);
            for (const l of s.tile.local) {
              if (!s.transients.includes(l.name) && arrays.get(l.name)?.role !== 'temporary') errors.push(`launch ${s.stencil}: tile-local '${l.name}' is neither a transient of the launch nor a temporary`);
              else if (arrays.get(l.name)?.axes !== 'IJK') errors.push(`launch ${s.stencil}: tile-local '${l.name}' is not an IJK array`);
            }
            for (const x of s.tile.versioned ?? []) {
              const what = `launch ${s.stencil}: versioned '${x.name}'`;
              if (arrays.get(x.name)?.axes !== 'IJK' || arrays.get(x.name)?.dims?.length) errors.push(`${what} is not an IJK array without data dimensions`);
              if (!s.transients.includes(x.shadow) || s.tile.local.some((l) => l.name === x.shadow)) errors.push(`${what}: its shadow '${x.shadow}' is not a transient of the launch kept whole`);
              if (s.transients.includes(x.name) || s.tile.local.some((l) => l.name === x.name)) errors.push(`${what} is itself private to the launch`);
              if (!launchWrites(s).has(x.name)) errors.push(`${what} is not written by the launch`);
            }
          }
          for (const v of s.loops) {
            for (const h of v.body) {
              if (h.grow && !s.tile) errors.push(`launch ${s.stencil}: a nest grows beyond its tile, but the launch is not tiled`);
              if (h.grow && !h.grow.every((n) => Number.isInteger(n) && n >= 0)) errors.push(`launch ${s.stencil}: nest growth (${h.grow.join(', ')}) is not non-negative integers`);
            }
          }
          for (const name of Object.keys(s.origins)) if (!arrays.has(name)) errors.push(`launch ${s.stencil}: origin for unknown array '${name}'`);
          for (const v of s.loops) {
            hostExpr(v.k.lo, `launch ${s.stencil}`);
            hostExpr(v.k.hi, `launch ${s.stencil}`);
            for (const h of v.body) {
              [h.i.lo, h.i.hi, h.j.lo, h.j.hi].forEach((e) => hostExpr(e, `launch ${s.stencil}`));
              const locals = new Map((h.locals ?? []).map((l) => [l.name, l.dtype as string]));
              for (const l of h.locals ?? []) if (arrays.has(l.name) || scalars.has(l.name)) errors.push(`launch ${s.stencil}: local '${l.name}' shadows a program name`);
              pointStmts(h.body, `launch ${s.stencil}`, locals);
            }
          }
          break;
        case 'set':
          if (!scalars.has(s.name)) errors.push(`set of unknown scalar '${s.name}'`);
          hostExpr(s.value, `set ${s.name}`);
          break;
        case 'for':
          if (!scalars.has(s.var)) errors.push(`loop variable '${s.var}' is not declared`);
          [s.start, s.stop, s.step].forEach((e) => hostExpr(e, 'for'));
          break;
        case 'while':
          hostExpr(s.cond, 'while');
          break;
        case 'if':
          hostExpr(s.cond, 'if');
          break;
        case 'callback': {
          const cb = callbacks.get(s.callback);
          if (!cb) {
            errors.push(`call of unknown callback '${s.callback}'`);
            break;
          }
          if (s.args.length !== cb.params.length) errors.push(`callback ${s.callback}: ${s.args.length} arguments for ${cb.params.length} parameters`);
          s.args.forEach((a, n) => {
            if (cb.params[n] && a.dtype !== cb.params[n].dtype) errors.push(`callback ${s.callback}: argument ${n} is ${a.dtype}, parameter is ${cb.params[n].dtype}`);
            hostExpr(a, `callback ${s.callback}`);
          });
          if (s.result !== null && (cb.result === null || !scalars.has(s.result))) errors.push(`callback ${s.callback}: result stored in '${s.result}', which ${cb.result === null ? 'the callback does not return' : 'is undeclared'}`);
          break;
        }
        case 'halo':
          for (const f of s.fields) {
            const a = arrays.get(f);
            if (!a) errors.push(`halo #${s.exchange}: unknown array '${f}'`);
            else if (!a.axes.startsWith('IJ')) errors.push(`halo #${s.exchange}: '${f}' has axes ${a.axes}, not I and J first`);
          }
          if (!s.fields.length) errors.push(`halo #${s.exchange}: no fields`);
          if (!(Number.isInteger(s.width) && s.width >= 1 && s.width <= s.halo)) errors.push(`halo #${s.exchange}: width ${s.width} is not in 1..${s.halo}`);
          break;
      }
    });
  const callbacks = new Map<string, CallbackDecl>();
  for (const cb of p.callbacks ?? []) {
    if (callbacks.has(cb.name)) errors.push(`callback '${cb.name}' is declared twice`);
    callbacks.set(cb.name, cb);
    errors.push(...verifyCallback(cb));
  }
  walk(p.body);
  return errors;
}

/** A callback's host body uses only its own scalars and returns its declared dtype. */
function verifyCallback(cb: CallbackDecl): string[] {
  const errors: string[] = [];
  if (!cb.host) return errors;
  const scalars = new Map(cb.host.scalars.map((s) => [s.name, s]));
  for (const p of cb.params) if (scalars.get(p.name)?.dtype !== p.dtype) errors.push(`callback ${cb.name}: parameter '${p.name}' has no ${p.dtype} scalar`);
  const where = `callback ${cb.name}`;
  const ex = (e: Expr) =>
    checkExpr(e, where, errors, (x) => {
      if (x.kind === 'field' || x.kind === 'shape') return `array access '${x.name}' in a callback`;
      if (x.kind === 'kindex') return 'the K index read in a callback';
      if (x.kind === 'scalar' && !scalars.has(x.name)) return `unknown scalar '${x.name}'`;
      return null;
    });
  const visit = (list: HostStmt[]) =>
    forEachHostStmt(list, (s) => {
      switch (s.kind) {
        case 'set':
          if (!scalars.has(s.name)) errors.push(`${where}: set of unknown scalar '${s.name}'`);
          ex(s.value);
          break;
        case 'if':
        case 'while':
          ex(s.cond);
          break;
        case 'for':
          if (!scalars.has(s.var)) errors.push(`${where}: loop variable '${s.var}' is not declared`);
          [s.start, s.stop, s.step].forEach(ex);
          break;
        case 'return':
          if (s.value) {
            ex(s.value);
            if (s.value.dtype !== cb.result) errors.push(`${where}: returns ${s.value.dtype}, declared ${cb.result ?? 'None'}`);
          }
          break;
        case 'raise':
          break;
      }
    });
  visit(cb.host.body);
  return errors;
}

function verifyStencil(def: StencilDef): string[] {
  const errors: string[] = [];
  const fields = new Map(def.fields.map((f) => [f.name, f]));
  const scalars = new Set(def.scalars.map((s) => s.name));
  for (const p of def.params) if (!fields.has(p) && !scalars.has(p)) errors.push(`stencil ${def.name}: parameter '${p}' is undeclared`);
  const visit = (list: Stmt[]) =>
    forEachStmt(list, (s) => {
      const ex = (e: Expr) =>
        checkExpr(e, `stencil ${def.name}`, errors, (x) => {
          if (x.kind === 'field' && !fields.has(x.name)) return `unknown field '${x.name}'`;
          if (x.kind === 'field') return dataIndexProblem(x.name, fields.get(x.name)!.dims, x.data);
          if (x.kind === 'scalar' && !scalars.has(x.name)) return `unknown scalar '${x.name}'`;
          return null;
        });
      if (s.kind === 'assign') {
        const f = fields.get(s.target);
        if (!f) errors.push(`stencil ${def.name}: assignment to unknown field '${s.target}'`);
        else if (f.dtype !== s.value.dtype) errors.push(`stencil ${def.name}: ${s.target} is ${f.dtype} but is assigned ${s.value.dtype}`);
        else if (dataIndexProblem(s.target, f.dims, s.data)) errors.push(`stencil ${def.name}: ${dataIndexProblem(s.target, f.dims, s.data)}`);
        ex(s.value);
      } else if (s.kind === 'if' || s.kind === 'while') ex(s.cond);
      else if (s.kind !== 'region') errors.push(`stencil ${def.name}: '${s.kind}' statements only exist after library expansion`);
    });
  for (const c of def.computations) {
    for (const iv of c.intervals) {
      visit(iv.body);
      for (const b of [iv.runtime?.lo, iv.runtime?.hi]) {
        if (!b) continue;
        if (b.dtype !== 'int64') errors.push(`stencil ${def.name}: a runtime interval bound is ${b.dtype}, not int64`);
        checkExpr(b, `stencil ${def.name}`, errors, (x) => {
          if (x.kind === 'field' || x.kind === 'kindex') return 'a runtime interval bound reads more than scalars';
          if (x.kind === 'scalar' && !scalars.has(x.name)) return `unknown scalar '${x.name}'`;
          return null;
        });
      }
    }
  }
  return errors;
}

const BOOL_OPS = new Set(['<', '<=', '>', '>=', '==', '!=', 'and', 'or']);

function checkExpr(e: Expr, where: string, errors: string[], resolve: (e: Expr) => string | null): void {
  const r = resolve(e);
  if (r) errors.push(`${where}: ${r}`);
  const expect = (cond: boolean, msg: string) => {
    if (!cond) errors.push(`${where}: ${msg}`);
  };
  switch (e.kind) {
    case 'binary':
      expect(e.left.dtype === e.right.dtype || e.op === '**', `operands of '${e.op}' have dtypes ${e.left.dtype} and ${e.right.dtype}`);
      expect(BOOL_OPS.has(e.op) ? e.dtype === 'bool' : e.dtype === e.left.dtype || e.op === '**', `'${e.op}' yields ${e.dtype}`);
      checkExpr(e.left, where, errors, resolve);
      checkExpr(e.right, where, errors, resolve);
      break;
    case 'unary':
      expect(e.op === 'not' ? e.dtype === 'bool' : e.dtype === e.arg.dtype, `unary '${e.op}' yields ${e.dtype}`);
      checkExpr(e.arg, where, errors, resolve);
      break;
    case 'cast':
      checkExpr(e.arg, where, errors, resolve);
      break;
    case 'ternary':
      expect(e.cond.dtype === 'bool', 'ternary condition is not bool');
      expect(e.then.dtype === e.dtype && e.else.dtype === e.dtype, 'ternary branches disagree on dtype');
      checkExpr(e.cond, where, errors, resolve);
      checkExpr(e.then, where, errors, resolve);
      checkExpr(e.else, where, errors, resolve);
      break;
    case 'call':
      e.args.forEach((a) => checkExpr(a, where, errors, resolve));
      break;
    case 'field':
      if (e.kOffset) {
        expect(isIntDType(e.kOffset.dtype), `variable K offset of '${e.name}' is ${e.kOffset.dtype}, not an integer`);
        checkExpr(e.kOffset, where, errors, resolve);
      }
      for (const d of e.data ?? []) checkExpr(d, where, errors, resolve);
      break;
    case 'lit':
      expect(typeof e.value === 'boolean' ? e.dtype === 'bool' : e.dtype !== 'bool', `literal ${e.value} typed ${e.dtype}`);
      break;
    case 'kindex':
      expect(e.dtype === 'int64', `the K index is typed ${e.dtype}, not int64`);
      break;
    default:
      break;
  }
}
