import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { OrchError, registerSource } from '../diagnostics.js';
import { dottedName, type PyExpr, type PyStmt } from '../python/ast.js';
import { parsePython } from '../python/parse.js';
import { constEval, truthy } from './constEval.js';
import { knownModule, PY_BUILTINS } from './knownModules.js';
import { scopeName, type ClassInfo, type FunctionKind, type FunctionInfo, type ModuleScope, type Value } from './values.js';
import type { SourceLoc } from '../ir/types.js';
import { gt4pyBackend } from '../config/gt4pyBackend.js';
import { externalFunctionUnusable, externalModuleNotFound, externalsNotDict } from '../diagnostics/externalErrors.js';
import { dtypesNotDict } from '../diagnostics/stencilErrors.js';
import { cannotReadModule, compileTimeRecursion, importCycle, moduleCodeRaises } from '../diagnostics/frontendErrors.js';

/**
 * Loads Python modules the way Python's import system would find them (the module's own
 * folder, then the configured import path), evaluates their top level at compile time
 * (constants, imports, type aliases, function definitions) and records every file read,
 * so caches and watch mode know exactly what a build depended on.
 */
export class ModuleLoader {
  private readonly byFile = new Map<string, ModuleScope>();
  private readonly loading = new Set<string>();
  private readonly failed = new Map<string, unknown>();
  /** Every source file read, with its content (for cache keys and watch). */
  readonly filesRead = new Map<string, string>();
  /** module file -> files it imports directly */
  private readonly imports = new Map<string, Set<string>>();
  /**
   * module file -> paths its imports probed and found absent before resolving (or failing
   * to): a file appearing there later would change what the import finds.
   */
  private readonly absentProbed = new Map<string, Set<string>>();
  /** module file -> environment variables its top level read, with their values (null: unset) */
  private readonly envRead = new Map<string, Map<string, string | null>>();
  private callDepth = 0;

  constructor(
    readonly importPath: string[] = [],
    private readonly env: Readonly<Record<string, string | undefined>> = process.env,
  ) {}

  load(file: string, name?: string): ModuleScope {
    const abs = path.resolve(file);
    const cached = this.byFile.get(abs);
    if (cached) return cached;
    const failure = this.failed.get(abs);
    if (failure) throw failure;
    if (this.loading.has(abs)) throw importCycle(abs);
    let source: string;
    try {
      source = readFileSync(abs, 'utf8');
    } catch {
      throw cannotReadModule(file);
    }
    // what was read, byte for byte (hashed for the cache)
    this.filesRead.set(abs, source);
    // Python skips a UTF-8 byte order mark at the start of a module
    const text = source.startsWith('\uFEFF') ? source.slice(1) : source;
    // code frames must show the text this build read, not an older copy (watch mode)
    registerSource(abs, text);
    this.loading.add(abs);
    try {
      const mod = parsePython(abs, text);
      const scope: ModuleScope = { name: name ?? path.basename(abs, '.py'), file: abs, names: new Map() };
      this.byFile.set(abs, scope);
      this.exec(mod.body, scope);
      return scope;
    } catch (e) {
      // every importer of a broken module gets its error, not a bogus import cycle
      this.byFile.delete(abs);
      this.failed.set(abs, e);
      throw e;
    } finally {
      this.loading.delete(abs);
    }
  }

  lookup(scope: ModuleScope, name: string): Value | undefined {
    return scopeName(scope, name) ?? (scope.parent ? this.lookup(scope.parent, name) : PY_BUILTINS[name]);
  }

  /** Binds an import to be resolved on first use (see the `lazy` value). */
  private bindLazy(scope: ModuleScope, name: string, resolve: () => Value): void {
    scope.names.set(name, { k: 'lazy', resolve });
  }

  eval(e: PyExpr, scope: ModuleScope): Value {
    return constEval(e, (n) => this.lookup(scope, n), {
      env: (name) => this.readEnv(scope, name),
      call: (fn, args, kwargs, call) => this.callFunction(fn, args, kwargs, call),
    });
  }

  /**
   * Runs a plain module-level function at compile time (a constants module's selector,
   * `_get_constant_version()`): its parameters bound to the arguments, its body run like
   * module code, its `return` value the result.
   */
  private callFunction(fn: FunctionInfo, args: Value[], kwargs: Record<string, Value>, call: Extract<PyExpr, { t: 'call' }>): Value {
    if (this.callDepth > 50) throw compileTimeRecursion(fn.name, call.loc);
    const local: ModuleScope = { name: fn.module.name, file: fn.module.file, names: new Map(), parent: fn.module };
    for (const [i, p] of fn.def.params.entries()) {
      const v = p.kind === 'normal' && i < args.length ? args[i] : (kwargs[p.name] ?? (p.default ? this.eval(p.default, fn.module) : undefined));
      if (v === undefined) return { k: 'opaque', why: `${fn.name}() is called without its argument '${p.name}'`, loc: call.loc };
      local.names.set(p.name, v);
    }
    this.callDepth++;
    try {
      return this.exec(fn.def.body, local) ?? { k: 'none' };
    } finally {
      this.callDepth--;
    }
  }

  private readEnv(scope: ModuleScope, name: string): string | undefined {
    const value = this.env[name];
    let read = this.envRead.get(scope.file);
    if (!read) this.envRead.set(scope.file, (read = new Map()));
    read.set(name, value ?? null);
    return value;
  }

  /**
   * Runs module (or compile-time function) code; returns the value of a `return` reached.
   * After an `if` whose condition orch cannot evaluate, neither branch runs and what
   * follows is uncertain: a `return` there gives an opaque value, a `raise` is not an error.
   */
  private exec(body: PyStmt[], scope: ModuleScope): Value | undefined {
    let uncertain: SourceLoc | null = null;
    for (const s of body) {
      switch (s.t) {
        case 'import':
          for (const a of s.names) {
            if (a.asname) this.bindLazy(scope, a.asname, () => this.importModule(a.name, scope, 0, s.loc));
            else {
              // `import a.b.c` binds `a`
              const top = a.name.split('.')[0];
              this.bindLazy(scope, top, () => {
                this.importModule(a.name, scope, 0, s.loc);
                return this.importModule(top, scope, 0, s.loc);
              });
            }
          }
          break;
        case 'importfrom': {
          if (s.module === '__future__') break;
          if (s.module === '__externals__' || s.module === '__gtscript__') break;
          let mod: Value | undefined;
          const from = () => (mod ??= this.importModule(s.module, scope, s.level, s.loc));
          for (const a of s.names) {
            if (a.name === '*') {
              const m = from();
              if (m.k === 'module') {
                const names = m.scope ? [...m.scope.names.entries()] : Object.entries(m.members ?? {});
                for (const [k, v] of names) if (!k.startsWith('_')) scope.names.set(k, v);
              }
              continue;
            }
            this.bindLazy(scope, a.asname ?? a.name, () => {
              const m = from();
              let v: Value | undefined;
              if (m.k === 'module') {
                v = m.members?.[a.name] ?? (m.scope ? scopeName(m.scope, a.name) : undefined);
                // `from pkg import submodule`, `from . import sibling`, `from .pkg import submodule`
                if (v === undefined) v = this.tryImport(s.level > 0 ? [s.module, a.name].filter(Boolean).join('.') : `${m.name}.${a.name}`, scope, s.level);
              }
              return v ?? (m.k === 'opaque' ? m : { k: 'opaque', why: `module '${s.module}' has no name '${a.name}' that orch can see`, loc: a.loc });
            });
          }
          break;
        }
        case 'assign': {
          const v = this.eval(s.value, scope);
          for (const t of s.targets) this.bind(t, v, scope);
          break;
        }
        case 'augassign': {
          if (s.target.t !== 'name') break;
          const v = this.eval({ t: 'binop', op: s.op, left: s.target, right: s.value, loc: s.loc }, scope);
          scope.names.set(s.target.id, v);
          break;
        }
        case 'def':
          scope.names.set(s.name, { k: 'function', fn: this.functionInfo(s, scope) });
          break;
        case 'class':
          scope.names.set(s.name, this.classValue(s, scope));
          break;
        case 'if': {
          const t = truthy(this.eval(s.test, scope));
          if (t === undefined) uncertain ??= s.test.loc;
          const returned = this.exec(t === true ? s.body : t === false ? s.orelse : [], scope);
          if (returned) return returned;
          break;
        }
        case 'try': {
          const returned = this.execTry(s, scope);
          if (returned) return returned;
          break;
        }
        case 'return':
          if (uncertain) return { k: 'opaque', why: 'the value depends on a condition orch cannot evaluate at compile time', loc: uncertain };
          return s.value ? this.eval(s.value, scope) : { k: 'none' };
        case 'unsupported':
          if (s.what === 'raise' && !uncertain) {
            throw moduleCodeRaises(path.basename(scope.file), s.loc, s.length);
          }
          break;
        default:
          break;
      }
    }
    return undefined;
  }

  /**
   * `try`/`except` in module code: the body runs; if it fails the way Python code raises
   * (a missing key, an unset variable, a bad conversion, a `raise`), the first handler
   * whose exception names match runs instead (exception types are matched by name).
   */
  private execTry(s: Extract<PyStmt, { t: 'try' }>, scope: ModuleScope): Value | undefined {
    let returned: Value | undefined;
    try {
      returned = this.exec(s.body, scope);
      if (!returned) returned = this.exec(s.orelse, scope);
    } catch (e) {
      const raised = e instanceof OrchError ? PYTHON_EXCEPTIONS[e.diagnostic.code] : undefined;
      const handler = raised && s.handlers.find((h) => handles(h.type, raised));
      if (!handler) throw e;
      if (handler.name) scope.names.set(handler.name, { k: 'opaque', why: `'${handler.name}' is the exception caught at compile time`, loc: handler.loc });
      returned = this.exec(handler.body, scope);
    } finally {
      const final = this.exec(s.finalbody, scope);
      if (final) returned = final;
    }
    return returned;
  }

  /** `class X(Enum)` becomes an enum of its assigned members; other classes are opaque. */
  private classValue(s: Extract<PyStmt, { t: 'class' }>, scope: ModuleScope): Value {
    const isEnum = s.bases.some((b) => {
      const v = this.eval(b, scope);
      return v.k === 'builtin' && (v.name === 'Enum' || v.name === 'IntEnum' || v.name === 'StrEnum');
    });
    // any other class may be a program class (__init__ storing stencils, __call__)
    if (!isEnum) return { k: 'class', cls: this.classInfo(s, scope) };
    const members: Record<string, Value> = {};
    for (const b of s.body) {
      if (b.t !== 'assign' || b.targets.length !== 1 || b.targets[0].t !== 'name') continue;
      members[b.targets[0].id] = { k: 'enumMember', enum: s.name, name: b.targets[0].id, value: this.eval(b.value, scope) };
    }
    return { k: 'enum', name: s.name, members };
  }

  private bind(target: PyExpr, v: Value, scope: ModuleScope): void {
    if (target.t === 'name') scope.names.set(target.id, v);
    else if (target.t === 'tuple') {
      target.elts.forEach((t, i) => this.bind(t, v.k === 'tuple' && v.items[i] ? v.items[i] : { k: 'opaque', why: 'cannot unpack', loc: t.loc }, scope));
    }
  }

  functionInfo(def: Extract<PyStmt, { t: 'def' }>, scope: ModuleScope): FunctionInfo {
    let kind: FunctionKind = 'plain';
    let externals: Record<string, Value> = {};
    let backend: FunctionInfo['backend'];
    let dtypes: Record<string, Value> | undefined;
    for (const d of def.decorators) {
      const callee = d.t === 'call' ? d.func : d;
      const v = this.eval(callee, scope);
      const name = v.k === 'builtin' ? v.name : callee.t === 'attr' ? callee.attr : callee.t === 'name' ? callee.id : '';
      if (name === 'function') kind = 'gtfunction';
      else if (name === 'stencil' || name === 'lazy_stencil') kind = 'stencil';
      // NDSL's @orchestrate_function(config=...): a function an orchestrated method inlines
      else if (name === 'program' || name === 'orchestrate_function') kind = 'program';
      else if (name === 'callback' || name === 'dace_inhibitor') kind = 'callback';
      if (d.t === 'call') {
        const ext = d.kwargs.find((k) => k.name === 'externals');
        if (ext) externals = this.evalExternals(ext.value, scope);
        const dt = d.kwargs.find((k) => k.name === 'dtypes');
        const dv = dt && this.eval(dt.value, scope);
        if (dt && dv?.k !== 'dict') throw dtypesNotDict(dt.value.loc);
        if (dv?.k === 'dict') dtypes = dv.entries;
        // GT4Py checks backend= when the decorator runs, so an unknown name fails the module here too
        const be = d.kwargs.find((k) => k.name === 'backend');
        const v = be && this.eval(be.value, scope);
        if (be && v?.k === 'str') backend = { name: v.value, kind: gt4pyBackend(v.value, be.value.loc, v.value.length + 2), loc: be.value.loc };
      }
    }
    return { name: def.name, def, module: scope, kind, externals, ...(backend ? { backend } : {}), ...(dtypes ? { dtypes } : {}) };
  }

  /** Methods and class-level constants; a program class is decorated @program (or its __call__ is). */
  classInfo(def: Extract<PyStmt, { t: 'class' }>, scope: ModuleScope): ClassInfo {
    const methods = new Map<string, FunctionInfo>();
    const attrs = new Map<string, Value>();
    for (const s of def.body) {
      if (s.t === 'def') methods.set(s.name, this.functionInfo(s, scope));
      else if (s.t === 'assign') for (const t of s.targets) if (t.t === 'name') attrs.set(t.id, this.eval(s.value, scope));
    }
    const decorated = def.decorators.some((d) => {
      const v = this.eval(d.t === 'call' ? d.func : d, scope);
      return v.k === 'builtin' && v.name === 'program';
    });
    return { name: def.name, def, module: scope, methods, attrs, isProgram: decorated || methods.get('__call__')?.kind === 'program' };
  }

  private evalExternals(e: PyExpr, scope: ModuleScope): Record<string, Value> {
    const v = this.eval(e, scope);
    if (v.k !== 'dict') {
      throw externalsNotDict(v.k === 'opaque' ? ` (${v.why})` : '', e.loc);
    }
    return v.entries;
  }

  /**
   * Resolves `pkg.mod.name` (an external given as {"function": ...}) as `from pkg.mod import
   * name` in `scope` would, recording the import so the cache key covers that module.
   */
  resolveFunction(dotted: string, scope: ModuleScope, loc: SourceLoc, external: string): FunctionInfo {
    const cut = dotted.lastIndexOf('.');
    const modName = dotted.slice(0, cut);
    const name = dotted.slice(cut + 1);
    const mod = this.importModule(modName, scope, 0, loc);
    if (mod.k !== 'module') {
      throw externalModuleNotFound(external, modName, path.basename(scope.file), loc, external.length);
    }
    const v = mod.members?.[name] ?? (mod.scope ? scopeName(mod.scope, name) : undefined);
    if (!v || v.k !== 'function' || (v.fn.kind !== 'gtfunction' && v.fn.kind !== 'plain')) {
      const what = !v ? 'is not defined' : v.k === 'function' ? `is a ${v.fn.kind}, not a @gtscript.function` : 'is not a function';
      throw externalFunctionUnusable(external, name, modName, what, loc, external.length);
    }
    return v.fn;
  }

  /** Resolves a module for `import name` / `from name import ...` seen in `scope`. */
  importModule(name: string, scope: ModuleScope, level: number, loc: PyStmt['loc']): Value {
    return (
      this.tryImport(name, scope, level) ?? {
        k: 'opaque',
        why: `module '${'.'.repeat(level)}${name}' was not found next to ${path.basename(scope.file)} or on the import path`,
        loc,
      }
    );
  }

  private tryImport(name: string, scope: ModuleScope, level: number): Value | undefined {
    if (level === 0) {
      const known = knownModule(name);
      if (known) return known;
    }
    const rel = name ? name.split('.') : [];
    let roots: string[];
    if (level > 0) {
      let base = path.dirname(scope.file);
      for (let i = 1; i < level; i++) base = path.dirname(base);
      roots = [base];
    } else {
      roots = [path.dirname(scope.file), ...this.importPath];
    }
    let absent = this.absentProbed.get(scope.file);
    if (!absent) this.absentProbed.set(scope.file, (absent = new Set()));
    for (const root of roots) {
      const asFile = path.join(root, ...rel) + '.py';
      const asPkg = path.join(root, ...rel, '__init__.py');
      const asDir = path.join(root, ...rel);
      const dotted = level > 0 ? `${scope.name.split('.').slice(0, -level).concat(rel).join('.')}` : name;
      if (rel.length) {
        if (existsSync(asFile)) return this.moduleValue(asFile, dotted || name, scope);
        absent.add(asFile);
      }
      if (existsSync(asPkg)) return this.moduleValue(asPkg, dotted || name, scope);
      absent.add(asPkg);
      if (rel.length || level > 0) {
        if (!existsSync(asDir)) absent.add(asDir);
        else if (statSync(asDir).isDirectory()) {
          // namespace package: members are submodules, imported on demand
          return { k: 'module', name, scope: { name, file: path.join(root, ...rel, '__init__.py'), names: new Map() } };
        }
      }
    }
    return undefined;
  }

  private moduleValue(file: string, name: string, from: ModuleScope): Value {
    const scope = this.load(file, name);
    let set = this.imports.get(from.file);
    if (!set) this.imports.set(from.file, (set = new Set()));
    set.add(scope.file);
    return { k: 'module', name, scope };
  }

  /** A module and every local module it imports, transitively, with their sources. */
  dependencies(file: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const f of this.closure(file)) {
      const src = this.filesRead.get(f);
      if (src !== undefined) out.set(f, src);
    }
    return out;
  }

  /** Paths the imports of a module and its imports probed and found absent, sorted. */
  absences(file: string): string[] {
    const out = new Set<string>();
    for (const f of this.closure(file)) for (const p of this.absentProbed.get(f) ?? []) out.add(p);
    return [...out].sort();
  }

  /**
   * The environment variables a module and its imports read at compile time
   * (`os.environ`, `os.getenv`), with the values they saw (null: unset), sorted by name.
   */
  environment(file: string): Map<string, string | null> {
    const out = new Map<string, string | null>();
    for (const f of this.closure(file)) for (const [k, v] of this.envRead.get(f) ?? []) out.set(k, v);
    return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** `file` and every module it imports, transitively (absolute paths). */
  private closure(file: string): Set<string> {
    const out = new Set<string>();
    const visit = (f: string) => {
      const abs = path.resolve(f);
      if (out.has(abs)) return;
      out.add(abs);
      for (const d of this.imports.get(abs) ?? []) visit(d);
    };
    visit(file);
    return out;
  }
}

/** The Python exceptions that compile-time errors of module code stand for (`*`: any). */
const PYTHON_EXCEPTIONS: Record<string, string[]> = {
  E_CONST_LOOKUP: ['KeyError', 'LookupError'],
  E_ENV_UNSET: ['KeyError', 'LookupError'],
  E_CONST_CONVERSION: ['ValueError'],
  E_MODULE_RAISE: ['*'],
};

/** Whether `except <type>:` catches an exception named by one of `raised`. */
function handles(type: PyExpr | null, raised: string[]): boolean {
  if (!type) return true;
  const names = (type.t === 'tuple' ? type.elts : [type]).map((t) => dottedName(t)?.split('.').pop());
  return names.some((n) => n === 'Exception' || n === 'BaseException' || raised.includes('*') || (n !== undefined && raised.includes(n)));
}
