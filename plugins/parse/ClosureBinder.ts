import type { ArrayDecl, DType, Program, ScalarVar, SourceLoc } from '../../core/ir/types.js';
import { closureValue, type Closure, type ClosureNode } from '../../core/frontend/closure.js';
import type { ModuleLoader } from '../../core/frontend/ModuleLoader.js';
import type { PBinding, PObject } from './ProgramLowering.js';
import { scopeName, type ClassInfo, type FunctionInfo, type Value } from '../../core/frontend/values.js';
import { closureClassNoMethod, closureMethodWithoutOwner, closureNoCallbackMethod, closureNoClass, closureNoFunction, closureParameterNotIdentifier } from '../../core/diagnostics/programErrors.js';

/**
 * Turns a resolved closure (closure.ts) into the bindings a program lowers against:
 * arrays and runtime scalars become program parameters (named by the closure, so the
 * Python host passes them by name), configuration becomes compile-time values, and
 * stencils, callbacks and nested components point at their definitions in the user's files.
 */
export class ClosureBinder {
  constructor(
    private readonly loader: ModuleLoader,
    private readonly arrays: Map<string, ArrayDecl>,
    private readonly scalars: Map<string, ScalarVar>,
    private readonly params: Program['params'],
    private readonly loc: SourceLoc,
  ) {}

  /** The class a closure names, from its module file. */
  classOf(file: string, name: string): ClassInfo {
    const v = scopeName(this.loader.load(file), name);
    if (v?.k !== 'class') throw closureNoClass(file, name, this.loc);
    return v.cls;
  }

  private functionOf(file: string, cls: string | null, name: string): FunctionInfo {
    if (cls) {
      const fn = this.classOf(file, cls).methods.get(name);
      if (!fn) throw closureNoCallbackMethod(cls, file, name, this.loc);
      return fn;
    }
    const v = scopeName(this.loader.load(file), name);
    if (v?.k !== 'function') throw closureNoFunction(file, name, this.loc);
    return v.fn;
  }

  /** The root component: `self` of the orchestrated method. */
  root(c: Closure): PObject {
    return this.component(c.self);
  }

  bind(n: ClosureNode, owner: PObject | null): PBinding {
    switch (n.kind) {
      case 'array': {
        // one array reachable through several chains (a Quantity shared with a nested component) is one parameter
        const known = this.arrays.get(n.param);
        if (known && known.role === 'arg' && known.dtype === n.dtype && known.axes === n.axes) return { k: 'array', name: n.param };
        this.declareParam(n.param);
        this.arrays.set(n.param, { name: n.param, dtype: n.dtype, axes: n.axes, role: 'arg', loc: this.loc });
        this.params.push({ name: n.param, kind: 'field' });
        return { k: 'array', name: n.param };
      }
      case 'scalar':
        this.declareParam(n.param);
        this.scalars.set(n.param, { name: n.param, dtype: n.dtype as DType, role: 'arg' });
        this.params.push({ name: n.param, kind: 'scalar' });
        return { k: 'scalar', name: n.param };
      case 'value':
        return { k: 'value', value: closureValue(n.value) };
      case 'record': {
        const attrs = new Map<string, PBinding>();
        const rec: PBinding = { k: 'record', type: n.type, attrs, ...(n.halo ? { halo: n.halo } : {}) };
        for (const [key, item] of Object.entries(n.items)) attrs.set(key, this.bind(item, owner));
        return rec;
      }
      case 'component':
        return this.component(n);
      case 'method': {
        if (!owner) throw closureMethodWithoutOwner(n.name, this.loc);
        const fn = owner.cls.methods.get(n.name);
        if (!fn) throw closureClassNoMethod(owner.cls.name, n.name, this.loc);
        return { k: 'method', fn, self: owner };
      }
      case 'stencil': {
        const externals: Record<string, Value> = {};
        for (const [k, v] of Object.entries(n.externals)) externals[k] = closureValue(v);
        return { k: 'stencil', fn: this.functionOf(n.file, null, n.name), externals, origin: n.origin, domain: n.domain };
      }
      case 'callback':
        return { k: 'callback', fn: this.functionOf(n.file, n.class, n.name), path: n.path, method: n.class !== null };
      case 'unsupported':
        return { k: 'unsupported', type: n.type, why: n.why, hint: n.hint };
    }
  }

  private component(n: Extract<ClosureNode, { kind: 'component' }>): PObject {
    const obj: PObject = { k: 'object', cls: this.classOf(n.file, n.class), attrs: new Map(), call: n.method, closed: true };
    for (const [key, item] of Object.entries(n.items)) obj.attrs.set(key, this.bind(item, obj));
    return obj;
  }

  private declareParam(name: string): void {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || this.arrays.has(name) || this.scalars.has(name)) {
      throw closureParameterNotIdentifier(name, this.loc);
    }
  }
}
