import { launchAccessBounds, launchArrays, variableKReads, type AccessBound, type LaunchStmt } from '../../core/ir/accessBounds.js';
import { fail } from '../../core/diagnostics.js';
import { reads, writes } from '../../core/ir/walk.js';
import { tileLocalNames } from '../../core/ir/rewrite.js';
import { locatedErrorHint, locatedErrorPrefix, VARIABLE_K_HINT } from '../../core/runtime/locatedError.js';
import type { ProgramSignature, SignatureParam } from '../../core/runtime/NativeLibrary.js';
import {
  axisIndices,
  type ArrayDecl,
  type CallbackDecl,
  type DebugCheck,
  type AxisBound,
  type DType,
  type Expr,
  type HLoop,
  type HorizontalRegion,
  type LaunchRequirement,
  type Offset,
  type Program,
  type HaloStmt,
  type PStmt,
  type ScalarVar,
  type SourceLoc,
  type Stmt,
  type VLoop,
  type Tiling,
} from '../../core/ir/types.js';

import { emitHalo, haloHandleMembers, haloIncludes } from './haloExchange.js';

/**
 * C++ backend for the loop-nest IR (a `Program` after library expansion).
 *
 * The generated library follows the ABI documented in the generated header (and in
 * native/orch_runtime.h): `<sym>_init`, `<sym>_run(handle, args)`, `<sym>_last_error`,
 * `<sym>_exit`, `<sym>_signature`. Semantics match the orch interpreter: Python/numpy
 * arithmetic comes from orch_runtime.h, bounds are checked before every launch with
 * `launchAccessBounds`, and `run` reports errors through the handle instead of crashing.
 */

export interface CppOptions {
  /** Loop nesting, outermost first: a permutation of 'IJK' (e.g. 'IJK', 'KJI', 'KIJ'). */
  loopOrder: string;
  openmp: boolean;
  /** Emit `#line` directives so compiler errors point at the user's .py lines. */
  lineDirectives: boolean;
  /** Name the generated .cpp is written under; `#line` resets point at it. Default `<symbol>.cpp`. */
  sourceFileName?: string;
}

export interface CppOutput {
  source: string;
  header: string;
  /** Prefix of the exported functions: `orch_<sanitized program name>`. */
  symbol: string;
  signature: ProgramSignature;
}

export function generateCpp(program: Program, opts: CppOptions): CppOutput {
  const symbol = programSymbol(program.name);
  const signature = programSignature(program);
  const gen = new ProgramGenerator(program, opts, symbol);
  return { source: gen.source(signature), header: programHeader(program, symbol, signature), symbol, signature };
}

/** `orch_` + the program name with every character outside [A-Za-z0-9_] replaced by `_`. */
export function programSymbol(name: string): string {
  return `orch_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** The JSON a library returns from `<sym>_signature`: params in ABI order. */
export function programSignature(program: Program): ProgramSignature {
  const written = writtenArrays(program.body);
  const params: SignatureParam[] = program.params.map((p) => {
    if (p.kind === 'field') {
      const a = program.arrays.find((x) => x.name === p.name && x.role === 'arg');
      if (!a) throw new Error(`program '${program.name}': field parameter '${p.name}' has no 'arg' array`);
      return { name: p.name, kind: 'field', dtype: a.dtype, axes: a.axes, written: written.has(p.name) };
    }
    const s = program.scalars.find((x) => x.name === p.name && x.role === 'arg');
    if (!s) throw new Error(`program '${program.name}': scalar parameter '${p.name}' has no 'arg' scalar`);
    return { name: p.name, kind: 'scalar', dtype: s.dtype };
  });
  const callbacks = (program.callbacks ?? []).map((cb, index) => ({ index, name: cb.name, function: cb.function, params: cb.params, result: cb.result }));
  return { abi: 2, program: program.name, params, callbacks };
}

/** Arrays some launch of the (expanded) program assigns to: the fields a host must pass writable. */
function writtenArrays(body: readonly PStmt[], out = new Set<string>()): Set<string> {
  for (const s of body) {
    if (s.kind === 'launch') for (const v of s.loops) for (const h of v.body) collectTargets(h.body, out);
    else if (s.kind === 'for' || s.kind === 'while') writtenArrays(s.body, out);
    else if (s.kind === 'if') {
      writtenArrays(s.then, out);
      writtenArrays(s.else, out);
    }
  }
  return out;
}

/** C type of callback `cb`'s function pointer: typed scalars by value, then `T* result`. */
function callbackPointerType(cb: CallbackDecl): string {
  const params = cb.params.map((p) => CTYPE[p.dtype]);
  if (cb.result) params.push(`${CTYPE[cb.result]}*`);
  return `int (*)(${params.join(', ') || 'void'})`;
}

// ---------------------------------------------------------------------------------------
// C++ text helpers

export const CTYPE: Record<DType, string> = {
  float64: 'double',
  float32: 'float',
  int32: 'int32_t',
  int64: 'int64_t',
  bool: 'bool',
};
/** Element type in memory: bools are bytes (numpy's layout), read back as `!= 0`. */
export const STORAGE: Record<DType, string> = { ...CTYPE, bool: 'uint8_t' };

const isFloat = (d: DType): boolean => d === 'float64' || d === 'float32';
const isInt = (d: DType): boolean => d === 'int32' || d === 'int64';

/**
 * A C string literal for any user string. Everything outside printable ASCII, and the
 * characters that mean something in a literal, become 3-digit octal escapes (never
 * greedy, unlike \x), so no user text can end the literal or form a trigraph.
 */
export function cString(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte >= 0x20 && byte < 0x7f && ch !== '"' && ch !== '\\' && ch !== '?' ? ch : `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return `${out}"`;
}

/** User text inside a comment: quoted, one line, no comment terminator, no trigraphs. */
export function commentText(s: string): string {
  return JSON.stringify(s).replace(/\*\//g, '*\\/').replace(/\?/g, '\\u003f');
}

function floatLiteral(v: number, dtype: DType): string {
  let text: string;
  if (Number.isNaN(v)) text = 'std::numeric_limits<double>::quiet_NaN()';
  else if (v === Infinity) text = 'std::numeric_limits<double>::infinity()';
  else if (v === -Infinity) text = '(-std::numeric_limits<double>::infinity())';
  else {
    // JS prints the shortest string that round-trips, and g++ parses correctly rounded.
    text = Object.is(v, -0) ? '-0.0' : String(v);
    if (!/[.eE]/.test(text)) text += '.0';
    if (text.startsWith('-')) text = `(${text})`;
  }
  return dtype === 'float32' ? `static_cast<float>(${text})` : text;
}

function intLiteral(v: number, dtype: DType): string {
  if (!Number.isInteger(v)) throw new Error(`integer literal of dtype ${dtype} has non-integer value ${v}`);
  if (dtype === 'int32') {
    if (v < -(2 ** 31) || v >= 2 ** 31) throw new Error(`int32 literal ${v} is out of range`);
    return v === -(2 ** 31) ? 'INT32_MIN' : `static_cast<int32_t>(${v < 0 ? `(${v})` : v})`;
  }
  if (v <= -(2 ** 63)) return 'INT64_MIN';
  if (v >= 2 ** 63) throw new Error(`int64 literal ${v} is out of range`);
  return v < 0 ? `(${v}LL)` : `${v}LL`;
}

/** Converts C++ code of dtype `from` to dtype `to` with the IR's cast semantics. */
export function convert(code: string, from: DType, to: DType): string {
  if (from === to) return code;
  if (to === 'bool') return `(${code} != 0)`;
  if (isInt(to) && isFloat(from)) return `orch::ftoi<${CTYPE[to]}>(${code})`;
  return `static_cast<${CTYPE[to]}>(${code})`;
}

/** The type a comparison or `**` is computed in (numpy promotion of the two operands). */
function commonType(a: DType, b: DType): DType {
  if (a === b) return a;
  if (a === 'float64' || b === 'float64') return 'float64';
  if (a === 'float32' || b === 'float32') return isInt(a) || isInt(b) ? 'float64' : 'float32';
  if (a === 'int64' || b === 'int64') return 'int64';
  return 'int32';
}

const MATH_FN: Record<string, string> = {
  sqrt: 'sqrt', exp: 'exp', log: 'log', log10: 'log10',
  sin: 'sin', cos: 'cos', tan: 'tan', arcsin: 'asin', arccos: 'acos', arctan: 'atan',
  sinh: 'sinh', cosh: 'cosh', tanh: 'tanh', arcsinh: 'asinh', arccosh: 'acosh', arctanh: 'atanh',
  floor: 'floor', ceil: 'ceil', trunc: 'trunc', erf: 'erf', erfc: 'erfc', gamma: 'tgamma', cbrt: 'cbrt',
  // numpy's round: halfway cases to even, as nearbyint in the default rounding mode
  round: 'nearbyint',
};

/** Collects lines, indents them, and resolves `#line` resets to the generated file's own lines. */
export class Writer {
  private readonly lines: Array<string | null> = [];
  private depth = 0;

  line(text: string): void {
    this.lines.push(text ? '  '.repeat(this.depth) + text : '');
  }
  /** Preprocessor lines start in column 0. */
  directive(text: string): void {
    this.lines.push(text);
  }
  open(text: string): void {
    this.line(text);
    this.depth++;
  }
  close(text = '}'): void {
    this.depth--;
    this.line(text);
  }
  /** `} else {`: closes one block and opens the next at the same depth. */
  reopen(text: string): void {
    this.close(text);
    this.depth++;
  }
  /** Placeholder for `#line <next line> "<generated file>"`, filled in by `text`. */
  reset(): void {
    this.lines.push(null);
  }
  text(fileName: string): string {
    const file = cString(fileName);
    return `${this.lines.map((l, idx) => l ?? `#line ${idx + 2} ${file}`).join('\n')}\n`;
  }
}

/** Unique C++ identifiers for user names: readable when possible, never colliding. */
class Namer {
  private readonly used = new Set<string>();
  private readonly ids = new Map<string, string>();

  id(space: 'array' | 'scalar' | 'local', name: string): string {
    const key = `${space}:${name}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      const base = name.replace(/[^A-Za-z0-9_]/g, '_') || '_';
      id = base;
      for (let n = 2; this.used.has(`${space}:${id}`); n++) id = `${base}_${n}`;
      this.used.add(`${space}:${id}`);
      this.ids.set(key, id);
    }
    return id;
  }
}

/** What a point body needs to address arrays: the arrays hoisted by the current launch. */
export interface PointContext {
  hoisted: Map<string, ArrayDecl>;
  /** point-local scalars of the HLoop being emitted */
  locals: Map<string, DType>;
  /** origin expressions of the launch, for debug reports */
  origins: Record<string, Expr[]>;
  /** The launch reads at variable K offsets (so it has a `vkerr`). */
  variableK: boolean;
}

// ---------------------------------------------------------------------------------------

export class ProgramGenerator {
  protected w = new Writer();
  private readonly names = new Namer();
  protected readonly arrays: Map<string, ArrayDecl>;
  protected readonly scalars: Map<string, ScalarVar>;
  protected readonly order: string;
  private loopCount = 0;
  /** Source line of the point statement being generated, for run-time check messages. */
  private stmtLoc: SourceLoc | undefined;
  protected launchName = '';
  /** Set while generating the loops of one tile: the index of the vertical loop. */
  private tileScope: number | undefined;
  private readonly regionCond: string[] = [];
  /** Inside a tile of a launch with FORWARD/BACKWARD loops: every nest runs level by level. */
  private tileOrder: string | undefined;

  constructor(
    protected readonly program: Program,
    protected readonly opts: CppOptions,
    protected readonly symbol: string,
  ) {
    this.arrays = new Map(program.arrays.map((a) => [a.name, a]));
    this.scalars = new Map(program.scalars.map((s) => [s.name, s]));
    const order = opts.loopOrder.toUpperCase();
    if (order.length !== 3 || [...'IJK'].some((c) => !order.includes(c))) {
      fail('E_OPTION', `loop order '${opts.loopOrder}' is not a permutation of IJK`, {
        hint: "use e.g. 'IJK' (K innermost, best for C-contiguous IJK arrays) or 'KJI'",
      });
    }
    this.order = order;
  }

  // Identifiers. User names only ever appear behind these prefixes; generated locals use
  // other names (st, args, i, j, k, dom0, ilo0, ...), so nothing can collide.
  protected view(name: string): string {
    return `A_${this.names.id('array', name)}`;
  }
  protected ptr(name: string): string {
    return `p_${this.names.id('array', name)}`;
  }
  protected stride(name: string, pos: number): string {
    return `s${pos}_${this.names.id('array', name)}`;
  }
  protected kLimit(name: string, end: 'lo' | 'hi'): string {
    return `k${end}_${this.names.id('array', name)}`;
  }
  /** A kernel parameter holding the origin of array `name` along its axis `pos` (CUDA). */
  protected originParam(name: string, pos: number): string {
    return `o${pos}_${this.names.id('array', name)}`;
  }
  private buffer(name: string): string {
    return `B_${this.names.id('array', name)}`;
  }
  protected scalar(name: string): string {
    return `v_${this.names.id('scalar', name)}`;
  }

  protected array(name: string): ArrayDecl {
    const a = this.arrays.get(name);
    if (!a) throw new Error(`program '${this.program.name}' references unknown array '${name}'`);
    return a;
  }

  source(signature: ProgramSignature): string {
    const w = this.w;
    const p = this.program;
    w.line(`// Generated by orch from program ${commentText(p.name)}. Do not edit.`);
    w.line('// ABI: see the generated header and native/orch_runtime.h.');
    w.line('#include "orch_runtime.h"');
    for (const include of [...this.extraIncludes(), ...haloIncludes(p)]) w.line(include);
    w.line('#include <new>');
    w.line('');
    w.open('namespace {');
    w.line('');
    w.line(`constexpr const char* kSignature = ${cString(JSON.stringify(signature))};`);
    w.line('');
    const callbacks = p.callbacks ?? [];
    callbacks.forEach((cb, n) => w.line(`using callback${n}_t = ${callbackPointerType(cb)};  // ${commentText(cb.name)}`));
    w.line('/* A handle: the error buffer, and the host callbacks registered with set_callback. */');
    w.open(`struct Handle : ${this.stateType()} {`);
    callbacks.forEach((_, n) => w.line(`callback${n}_t callback${n} = nullptr;`));
    for (const member of haloHandleMembers(p)) w.line(member);
    w.close('};');
    w.line('');
    this.beforeRunProgram();
    w.open('int run_program(Handle* h, void* const* args) {');
    w.line(`${this.stateType()}* st = h;`);
    callbacks.forEach((cb, n) =>
      w.line(`if (!h->callback${n}) return orch::fail(st, "callback %d (%s) is not registered: call ${this.symbol}_set_callback before run", ${n}, ${cString(cb.name)});`),
    );
    this.prologue();
    this.pstmts(p.body);
    w.line('return 0;');
    w.close();
    this.afterRunProgram();
    w.line('');
    w.close('}  // namespace');
    w.line('');
    const api = `extern "C" __attribute__((visibility("default")))`;
    w.open(`${api} void* ${this.symbol}_init(void) {`);
    w.line('return new (std::nothrow) Handle{};');
    w.close();
    w.line('');
    w.open(`${api} int ${this.symbol}_set_callback(void* handle, int index, void* fn) {`);
    w.line('if (!handle) return 1;');
    w.line('Handle* h = static_cast<Handle*>(handle);');
    w.open('switch (index) {');
    callbacks.forEach((_, n) => w.line(`case ${n}: h->callback${n} = reinterpret_cast<callback${n}_t>(fn); return 0;`));
    w.line(`default: return orch::fail(h, "set_callback: no callback with index %d (this program has ${callbacks.length})", index);`);
    w.close();
    w.close();
    w.line('');
    w.open(`${api} int ${this.symbol}_run(void* handle, void* const* args) {`);
    w.line('if (!handle) return 1;');
    w.line('Handle* h = static_cast<Handle*>(handle);');
    w.line(`${this.stateType()}* st = h;`);
    w.line("st->error[0] = '\\0';");
    w.line('st->debug_failed = 0;');
    w.line('st->debug_logged = 0;');
    w.line('if (!args) return orch::fail(st, "run: the argument array is null");');
    this.runPrelude();
    w.open('try {');
    w.line('return run_program(h, args);');
    w.close('} catch (...) {');
    w.line('  return orch::fail(st, "run: unexpected C++ exception");');
    w.line('}');
    w.close();
    w.line('');
    w.open(`${api} const char* ${this.symbol}_last_error(void* handle) {`);
    w.line('return handle ? static_cast<Handle*>(handle)->error : "null handle";');
    w.close();
    w.line('');
    w.line(`${api} void ${this.symbol}_exit(void* handle) { delete static_cast<Handle*>(handle); }`);
    w.line('');
    w.line(`${api} const char* ${this.symbol}_signature(void) { return kSignature; }`);
    this.extraExports(api);
    return w.text(this.opts.sourceFileName ?? `${this.symbol}.cpp`);
  }

  // Extension points of the library shell, for backends that keep this ABI (plugins/codegen/cuda.ts).

  /** The handle type `init` allocates and every entry point casts to. */
  protected stateType(): string {
    return 'orch::State';
  }
  /** Includes after orch_runtime.h. */
  protected extraIncludes(): string[] {
    return [];
  }
  /** Lines of `run` after the handle and argument checks, before the program runs. */
  protected runPrelude(): void {}
  /** Definitions in the library's anonymous namespace before `run_program`. */
  protected beforeRunProgram(): void {}
  /** Definitions in the library's anonymous namespace after `run_program` (what its code generation collected). */
  protected afterRunProgram(): void {}
  /** Exports after `_signature` (`api` is the linkage and visibility prefix). */
  protected extraExports(api: string): void {
    void api;
  }
  /** The RAII type that owns a temporary's or transient's zero-filled storage. */
  protected bufferType(a: ArrayDecl): string {
    void a;
    return 'orch::Buffer';
  }

  /** Arguments, locals, array views and program temporaries, all at function top. */
  protected prologue(): void {
    const w = this.w;
    const p = this.program;
    const where = cString(`program '${p.name}'`);
    p.params.forEach((param, n) => {
      const label = cString(param.name);
      if (param.kind === 'field') {
        const a = this.array(param.name);
        w.line(`if (!args[${n}]) return orch::fail(st, "argument %d (%s) is null", ${n}, ${label});`);
        w.line(`orch_array ${this.view(a.name)} = *static_cast<const orch_array*>(args[${n}]);`);
        w.line(`if (orch::check_arg(st, ${label}, ${this.view(a.name)}, ${a.axes.length})) return 1;`);
      } else {
        const s = this.scalars.get(param.name);
        if (!s) throw new Error(`program '${p.name}': unknown scalar parameter '${param.name}'`);
        w.line(`if (!args[${n}]) return orch::fail(st, "argument %d (%s) is null", ${n}, ${label});`);
        const load = `*static_cast<const ${STORAGE[s.dtype]}*>(args[${n}])`;
        w.line(`${CTYPE[s.dtype]} ${this.scalar(s.name)} = ${s.dtype === 'bool' ? `(${load} != 0)` : load};`);
      }
    });
    for (const s of p.scalars) {
      if (s.role === 'local') w.line(`${CTYPE[s.dtype]} ${this.scalar(s.name)} = ${convert('0', 'int32', s.dtype)};`);
    }
    for (const a of p.arrays) {
      if (a.role !== 'arg') w.line(`orch_array ${this.view(a.name)}{};`);
    }
    // a temporary that lives per tile of its one launch (tiling pass) has no storage of its own
    const perTile = this.tilesLaunches() ? tileLocalNames(p.body) : new Set<string>();
    this.reserve(p.arrays.filter((a) => a.role === 'temporary' && !perTile.has(a.name)), 'st->temporaries', where);
    for (const a of p.arrays) {
      if (a.role === 'temporary') {
        if (perTile.has(a.name)) this.shapeOnly(a);
        else this.allocate(a, where);
      }
    }
  }

  /** Grows an arena once for the pooled arrays about to be placed in it (the last ends furthest). */
  private reserve(arrays: ArrayDecl[], arena: string, where: string): void {
    const pooled = arrays.filter((a) => a.pool);
    if (!pooled.length) return;
    const ends = pooled.map((a) => convert(this.expr(a.pool!.end, undefined), a.pool!.end.dtype, 'int64'));
    const total = ends.reduce((acc, e) => `std::max<int64_t>(${acc}, ${e})`);
    this.w.line(`if (orch::reserve(st, ${arena}, ${where}, ${total})) return 1;`);
  }

  /** Allocates a zero-filled temporary (run scope) or transient (launch scope). */
  private allocate(a: ArrayDecl, where: string): void {
    const w = this.w;
    if (!a.shape || a.shape.length !== a.axes.length) {
      throw new Error(`array '${a.name}' (${a.role}) needs ${a.axes.length} shape expressions`);
    }
    const shape = a.shape.map((e) => convert(this.expr(e, undefined), e.dtype, 'int64')).join(', ');
    if (a.pool) {
      const arena = a.role === 'temporary' ? 'st->temporaries' : 'st->transients';
      const int64 = (e: Expr): string => convert(this.expr(e, undefined), e.dtype, 'int64');
      w.open('{');
      w.line(`const int64_t shape[${a.axes.length}] = {${shape}};`);
      w.line(
        `if (orch::place(st, ${arena}, ${where}, ${cString(a.name)}, ${this.view(a.name)}, ${a.axes.length}, shape, sizeof(${STORAGE[a.dtype]}), ${int64(a.pool.offset)}, ${int64(a.pool.end)}, ${a.pool.zeroFill})) return 1;`,
      );
      w.close();
      return;
    }
    this.mapped(a.loc, () => w.line(`${this.bufferType(a)} ${this.buffer(a.name)};`));
    w.open('{');
    w.line(`const int64_t shape[${a.axes.length}] = {${shape}};`);
    w.line(
      `if (${this.buffer(a.name)}.allocate(st, ${where}, ${cString(a.name)}, ${this.view(a.name)}, ${a.axes.length}, shape, sizeof(${STORAGE[a.dtype]}))) return 1;`,
    );
    w.close();
  }

  /** Emits `emit` under a `#line` pointing at `loc`, then maps back to the generated file. */
  protected mapped(loc: SourceLoc | undefined, emit: () => void): void {
    if (!this.opts.lineDirectives || !loc) return emit();
    this.w.directive(`#line ${Math.max(1, Math.trunc(loc.line))} ${cString(loc.file)}`);
    emit();
    this.w.reset();
  }

  // -------------------------------------------------------------------------------------
  // Program statements

  private pstmts(body: readonly PStmt[]): void {
    for (const s of body) this.pstmt(s);
  }

  private pstmt(s: PStmt): void {
    const w = this.w;
    switch (s.kind) {
      case 'call':
        throw new Error(`program '${this.program.name}' still calls stencil '${s.stencil}': run libraryExpansion before codegen`);
      case 'set': {
        const v = this.scalars.get(s.name);
        if (!v) throw new Error(`set of unknown scalar '${s.name}'`);
        this.mapped(s.loc, () => w.line(`${this.scalar(v.name)} = ${convert(this.expr(s.value, undefined), s.value.dtype, v.dtype)};`));
        return;
      }
      case 'if':
        this.mapped(s.loc, () => w.open(`if (${this.cond(s.cond, undefined)}) {`));
        this.pstmts(s.then);
        if (s.else.length) {
          w.reopen('} else {');
          this.pstmts(s.else);
        }
        w.close();
        return;
      case 'while':
        this.mapped(s.loc, () => w.open(`while (${this.cond(s.cond, undefined)}) {`));
        this.pstmts(s.body);
        w.close();
        return;
      case 'for': {
        // Python range(): bounds evaluated once; the variable is assigned from a hidden
        // counter so the body may reassign it without changing the iteration.
        const v = this.scalars.get(s.var);
        if (!v) throw new Error(`for loop over unknown scalar '${s.var}'`);
        const n = this.loopCount++;
        const int64 = (e: Expr): string => convert(this.expr(e, undefined), e.dtype, 'int64');
        w.open('{');
        this.mapped(s.loc, () =>
          w.line(`const int64_t start${n} = ${int64(s.start)}, stop${n} = ${int64(s.stop)}, step${n} = ${int64(s.step)};`),
        );
        w.line(`if (step${n} == 0) return orch::fail(st, "%s: range() step must not be zero", ${cString(locText(s.loc))});`);
        w.open(`for (int64_t it${n} = start${n}; step${n} > 0 ? it${n} < stop${n} : it${n} > stop${n}; it${n} += step${n}) {`);
        w.line(`${this.scalar(v.name)} = ${convert(`it${n}`, 'int64', v.dtype)};`);
        this.pstmts(s.body);
        w.close();
        w.close();
        return;
      }
      case 'launch':
        this.launch(s);
        return;
      case 'callback':
        this.callback(s);
        return;
      case 'halo':
        this.halo(s);
        return;
    }
  }

  /** A halo exchange on host arrays (native/orch_halo.h). */
  protected halo(s: HaloStmt): void {
    this.mapped(s.loc, () => emitHalo(this.w, this.program, s, (name) => this.view(name)));
  }

  /** A host call: arguments by value, the result through a pointer, failure ends the run. */
  private callback(s: Extract<PStmt, { kind: 'callback' }>): void {
    const w = this.w;
    const index = (this.program.callbacks ?? []).findIndex((c) => c.name === s.callback);
    const cb = this.program.callbacks?.[index];
    if (!cb) throw new Error(`call of unknown callback '${s.callback}'`);
    const args = s.args.map((a, n) => convert(this.expr(a, undefined), a.dtype, cb.params[n].dtype));
    const failed = `return orch::fail(st, "callback '%s' failed at %s", ${cString(cb.name)}, ${cString(locText(s.loc))});`;
    w.open('{');
    if (cb.result) {
      w.line(`${CTYPE[cb.result]} result = ${convert('0', 'int32', cb.result)};`);
      args.push('&result');
    }
    this.mapped(s.loc, () => w.line(`if (h->callback${index}(${args.join(', ')}) != 0) ${failed}`));
    if (s.result !== null && cb.result) {
      const v = this.scalars.get(s.result);
      if (!v) throw new Error(`callback result stored in unknown scalar '${s.result}'`);
      w.line(`${this.scalar(v.name)} = ${convert('result', cb.result, v.dtype)};`);
    }
    w.close();
  }

  protected launch(s: LaunchStmt): void {
    const w = this.w;
    const where = cString(`stencil '${s.stencil}' at ${locText(s.loc)}`);
    const int64 = (e: Expr): string => convert(this.expr(e, undefined), e.dtype, 'int64');
    w.open(`{  // launch of ${commentText(s.stencil)}`);
    this.launchName = s.stencil;
    for (const r of s.requires ?? []) this.requirement(r);
    this.mapped(s.loc, () =>
      w.line(`[[maybe_unused]] const int64_t dom0 = ${int64(s.domain[0])}, dom1 = ${int64(s.domain[1])}, dom2 = ${int64(s.domain[2])};`),
    );
    const tile = s.tile && this.tilesLaunches() ? s.tile : undefined;
    const perTile = new Set(tile?.local.map((l) => l.name));
    this.reserve(s.transients.filter((t) => !perTile.has(t)).map((t) => this.array(t)), 'st->transients', where);
    for (const name of s.transients) {
      const a = this.array(name);
      if (a.role !== 'transient') throw new Error(`launch of '${s.stencil}' allocates '${name}', which is a ${a.role}`);
      // a tile-local array has no memory of its own, only the shape its bounds are checked against
      if (perTile.has(name)) this.shapeOnly(a);
      else this.allocate(a, where);
    }

    // Bounds: one check per array axis and loop scope; a violation returns before any write.
    const bounds = launchAccessBounds(s, this.program.arrays);
    this.boundsChecks(bounds, where);

    // Hoist base pointers (shifted to the origin) and strides of every array the launch touches.
    const written = new Set<string>();
    for (const v of s.loops) for (const h of v.body) collectTargets(h.body, written);
    const variableK = variableKReads(s);
    const ctx: PointContext = { hoisted: new Map(), locals: new Map(), origins: s.origins, variableK: variableK.size > 0 };
    this.beginLoops(ctx);
    for (const name of new Set([...bounds.map((b) => b.array), ...launchArrays(s)])) {
      if (perTile.has(name)) continue;
      const a = this.array(name);
      const origin = s.origins[name];
      const rank = a.axes.length;
      const strides = Array.from({ length: rank }, (_, pos) => `${this.stride(name, pos)} = ${this.view(name)}.strides[${pos}]`);
      w.line(`[[maybe_unused]] const int64_t ${strides.join(', ')};`);
      const shift = origin.map((o, pos) => `${int64(o)} * ${this.stride(name, pos)}`).join(' + ');
      const type = STORAGE[a.dtype];
      const constness = written.has(name) ? '' : 'const ';
      w.line(
        `[[maybe_unused]] ${constness}${type}* __restrict__ const ${this.ptr(name)} = static_cast<${constness}${type}*>(${this.view(name)}.data) + (${shift});`,
      );
      if (variableK.has(name)) {
        // the K indices this array holds, relative to its origin, for reads at variable offsets
        const kpos = a.axes.indexOf('K');
        const ko = int64(origin[kpos]);
        w.line(`[[maybe_unused]] const int64_t ${this.kLimit(name, 'lo')} = -(${ko}), ${this.kLimit(name, 'hi')} = ${this.view(name)}.shape[${kpos}] - (${ko});`);
      }
      ctx.hoisted.set(name, a);
    }
    if (tile) {
      this.tiledLoops(s, tile, ctx, where);
      this.afterVLoop(ctx);
    } else {
      for (const v of s.loops) {
        this.vloop(v, ctx);
        this.afterVLoop(ctx);
      }
    }
    this.endLaunch(s, ctx);
    w.close();
  }

  /** Whether this backend runs tiled launches tile by tile (else their tile-local arrays are ordinary transients). */
  protected tilesLaunches(): boolean {
    return true;
  }

  private shapeOnly(a: ArrayDecl): void {
    const shape = (a.shape ?? []).map((e) => convert(this.expr(e, undefined), e.dtype, 'int64'));
    this.w.line(`${this.view(a.name)} = orch_array{};`);
    shape.forEach((e, d) => this.w.line(`${this.view(a.name)}.shape[${d}] = ${e};`));
  }

  /**
   * A tiled launch (see Tiling in core/ir/types.ts): threads take tiles; in each tile every
   * loop runs over its nests' ranges clipped to the tile (grown by each nest's growth), and
   * tile-local arrays are placed in the thread's scratch arena, sized to what the tile's
   * nests touch, with the preset's innermost loop axis contiguous.
   */
  private tiledLoops(s: LaunchStmt, tile: Tiling, ctx: PointContext, where: string): void {
    const w = this.w;
    const int64 = (e: Expr): string => convert(this.expr(e, undefined), e.dtype, 'int64');
    const [ti, tj] = tile.size;
    w.open('{');
    const nests: { vi: number; n: number; h: HLoop; name: string }[] = [];
    s.loops.forEach((v, vi) => {
      w.line(`const int64_t klo_${vi} = ${int64(v.k.lo)}, khi_${vi} = ${int64(v.k.hi)};`);
      v.body.forEach((h, n) => {
        const name = `${vi}_${n}`;
        nests.push({ vi, n, h, name });
        w.line(`const int64_t Ilo_${name} = ${int64(h.i.lo)}, Ihi_${name} = ${int64(h.i.hi)}, Jlo_${name} = ${int64(h.j.lo)}, Jhi_${name} = ${int64(h.j.hi)};`);
      });
    });
    const tk = tile.k;
    w.line(
      `const int64_t nti = std::max<int64_t>(1, (dom0 + ${ti - 1}) / ${ti}), ntj = std::max<int64_t>(1, (dom1 + ${tj - 1}) / ${tj}), ntk = ${tk ? `std::max<int64_t>(1, (dom2 + ${tk - 1}) / ${tk})` : '1'};`,
    );
    const points = nests.map(({ vi, name }) => `(Ihi_${name} - Ilo_${name}) * (Jhi_${name} - Jlo_${name}) * (khi_${vi} - klo_${vi})`).join(' + ');
    w.line(`if (st->tiles.prepare(orch::max_threads())) return orch::fail(st, "%s: out of memory for the tile scratch arenas", ${where});`);
    w.line('std::atomic<int> tile_oom{0};');
    this.openRegion(this.opts.openmp, `${points} >= ORCH_OMP_MIN_POINTS`, ctx, ['tile_oom']);
    w.line('orch::Arena& scratch = st->tiles.of(orch::thread_index());');
    if (this.opts.openmp) w.directive('#pragma omp for collapse(3) schedule(static)');
    w.open('for (int64_t ti = 0; ti < nti; ++ti) {');
    w.open('for (int64_t tj = 0; tj < ntj; ++tj) {');
    w.open('for (int64_t tk = 0; tk < ntk; ++tk) {');
    s.loops.forEach((_, vi) => {
      if (!tk) w.line(`const int64_t kclo_${vi} = klo_${vi}, kchi_${vi} = khi_${vi};`);
      else w.line(`const int64_t kclo_${vi} = tk == 0 ? klo_${vi} : std::max<int64_t>(klo_${vi}, tk * ${tk}), kchi_${vi} = tk == ntk - 1 ? khi_${vi} : std::min<int64_t>(khi_${vi}, (tk + 1) * ${tk});`);
    });
    for (const { h, name } of nests) {
      const g = h.grow ?? [0, 0, 0, 0];
      w.line(
        `const int64_t ilo_${name} = ti == 0 ? Ilo_${name} : std::max<int64_t>(Ilo_${name}, ti * ${ti} - ${g[0]}), ` +
          `ihi_${name} = ti == nti - 1 ? Ihi_${name} : std::min<int64_t>(Ihi_${name}, (ti + 1) * ${ti} + ${g[1]}), ` +
          `jlo_${name} = tj == 0 ? Jlo_${name} : std::max<int64_t>(Jlo_${name}, tj * ${tj} - ${g[2]}), ` +
          `jhi_${name} = tj == ntj - 1 ? Jhi_${name} : std::min<int64_t>(Jhi_${name}, (tj + 1) * ${tj} + ${g[3]});`,
      );
    }
    // A launch with FORWARD/BACKWARD loops runs them level by level in a tile (vloop), so
    // there every nest runs K outermost and tile-local arrays are laid out to match.
    const tileOrder = s.loops.some((v) => v.order !== 'PARALLEL') ? planeOrder(this.order) : undefined;
    // each tile-local array covers the points the tile's nests touch, offsets included
    w.line('size_t tile_bytes = 0;');
    const boxes = tileLocalBoxes(s, tile);
    for (const l of tile.local) {
      const a = this.array(l.name);
      const x = this.local(`tile_${l.name}`);
      w.line(`int64_t ${x}_i0 = INT64_MAX, ${x}_i1 = INT64_MIN, ${x}_j0 = INT64_MAX, ${x}_j1 = INT64_MIN, ${x}_k0 = INT64_MAX, ${x}_k1 = INT64_MIN;`);
      for (const b of boxes.get(l.name) ?? []) {
        const name = `${b.vi}_${b.n}`;
        w.open(`if (ilo_${name} < ihi_${name} && jlo_${name} < jhi_${name} && kclo_${b.vi} < kchi_${b.vi}) {`);
        w.line(`${x}_i0 = std::min<int64_t>(${x}_i0, ilo_${name} + ${b.i[0]}); ${x}_i1 = std::max<int64_t>(${x}_i1, ihi_${name} - 1 + ${b.i[1]});`);
        w.line(`${x}_j0 = std::min<int64_t>(${x}_j0, jlo_${name} + ${b.j[0]}); ${x}_j1 = std::max<int64_t>(${x}_j1, jhi_${name} - 1 + ${b.j[1]});`);
        w.line(`${x}_k0 = std::min<int64_t>(${x}_k0, kclo_${b.vi} + ${b.k[0]}); ${x}_k1 = std::max<int64_t>(${x}_k1, kchi_${b.vi} - 1 + ${b.k[1]});`);
        w.close();
      }
      const extent = { I: `${x}_ni`, J: `${x}_nj`, K: `${x}_nk` };
      const ext = (a: string) => `${x}_${a}0 <= ${x}_${a}1 ? ${x}_${a}1 - ${x}_${a}0 + 1 : 0`;
      w.line(`const int64_t ${x}_ni = ${ext('i')}, ${x}_nj = ${ext('j')}, ${x}_nk = ${ext('k')};`);
      // untouched in this tile: no access, but keep the base pointer's arithmetic in range
      w.line(`if (${x}_ni == 0 || ${x}_nj == 0 || ${x}_nk == 0) ${x}_i0 = ${x}_j0 = ${x}_k0 = 0;`);
      w.line(`const size_t ${x}_at = tile_bytes;`);
      w.line(`tile_bytes += (static_cast<size_t>(${x}_ni * ${x}_nj * ${x}_nk) * sizeof(${STORAGE[a.dtype]}) + 63) / 64 * 64;`);
      // strides follow the loop order in the tile, so the innermost loop walks contiguous memory
      const inner = [...(tileOrder ?? this.order)].reverse();
      const strides: Record<string, string> = {};
      let acc = '1';
      for (const axis of inner) {
        strides[axis] = acc;
        acc = acc === '1' ? extent[axis as 'I' | 'J' | 'K'] : `${acc} * ${extent[axis as 'I' | 'J' | 'K']}`;
      }
      w.line(`[[maybe_unused]] const int64_t ${this.stride(l.name, 0)} = ${strides.I}, ${this.stride(l.name, 1)} = ${strides.J}, ${this.stride(l.name, 2)} = ${strides.K};`);
    }
    w.open('if (!scratch.ensure(tile_bytes)) {');
    w.line('tile_oom.store(1, std::memory_order_relaxed);');
    w.line('continue;');
    w.close();
    for (const l of tile.local) {
      const a = this.array(l.name);
      const x = this.local(`tile_${l.name}`);
      const type = STORAGE[a.dtype];
      w.line(
        `${type}* __restrict__ const ${this.ptr(l.name)} = reinterpret_cast<${type}*>(scratch.base() + ${x}_at) - ${x}_i0 * ${this.stride(l.name, 0)} - ${x}_j0 * ${this.stride(l.name, 1)} - ${x}_k0 * ${this.stride(l.name, 2)};`,
      );
      if (l.zeroFill) w.line(`std::memset(scratch.base() + ${x}_at, 0, static_cast<size_t>(${x}_ni * ${x}_nj * ${x}_nk) * sizeof(${type}));`);
      ctx.hoisted.set(l.name, a);
    }
    this.tileOrder = tileOrder;
    s.loops.forEach((v, vi) => {
      this.tileScope = vi;
      this.vloop(v, ctx);
    });
    this.tileScope = undefined;
    this.tileOrder = undefined;
    w.close();
    w.close();
    w.close();
    this.closeRegion(this.opts.openmp);
    w.line(`if (tile_oom.load()) return orch::fail(st, "%s: out of memory for the tile scratch arenas", ${where});`);
    w.close();
  }

  // Where a launch's run-time errors (variable K reads, debug checks) are caught. On the
  // CPU, reads record into a `VarKError` on the stack and checks into the handle.

  /** Before the loops of a launch (after its bounds checks). */
  protected beginLoops(ctx: PointContext): void {
    if (ctx.variableK) this.w.line('orch::VarKError vkerr;');
  }
  /** After each VLoop of a launch: a variable-K read that failed ends the run here. */
  protected afterVLoop(ctx: PointContext): void {
    if (ctx.variableK) this.w.line('if (vkerr.set.load()) return vkerr.report(st);');
  }
  /** After a launch: an abort-mode debug check that failed ends the run here. */
  protected endLaunch(s: LaunchStmt, ctx: PointContext): void {
    void ctx;
    if (launchHasCheck(s, (c) => c.action === 'abort')) this.w.line('if (st->debug_failed) return 1;');
  }
  /** Whether a variable-K read failed (in this thread at least), so a `while` loop must end. */
  protected variableKFailed(): string {
    return 'vkerr.set.load(std::memory_order_relaxed)';
  }

  /** Declares an HLoop's point-local scalars (zero at every point) inside the innermost loop. */
  protected pointLocals(h: HLoop, ctx: PointContext): void {
    ctx.locals = new Map((h.locals ?? []).map((l) => [l.name, l.dtype]));
    for (const l of h.locals ?? []) this.w.line(`${CTYPE[l.dtype]} ${this.local(l.name)} = ${convert('0', 'int32', l.dtype)};`);
  }

  protected local(name: string): string {
    return `l_${this.names.id('local', name)}`;
  }

  /** `if (!cond) return <located error>;` with the message's `{n}` filled in by printf. */
  private requirement(r: LaunchRequirement): void {
    const escape = (text: string) => text.replace(/%/g, '%%');
    const values: string[] = [];
    const message = escape(r.message).replace(/\{(\d+)\}/g, (_, n: string) => {
      const arg = r.args[Number(n)];
      if (!arg) throw new Error(`requirement ${r.code}: message refers to argument {${n}}, which it does not have`);
      values.push(`static_cast<long long>(${convert(this.expr(arg, undefined), arg.dtype, 'int64')})`);
      return '%lld';
    });
    const format = cString(escape(locatedErrorPrefix(r.code, r.loc)) + message + escape(locatedErrorHint(r.hint)));
    this.w.line(`if (!${this.cond(r.cond, undefined)}) return orch::fail(st, ${[format, ...values].join(', ')});`);
  }

  /** One guarded block per loop scope (bounds of a scope share their `nonEmpty` expr). */
  private boundsChecks(bounds: readonly AccessBound[], where: string): void {
    const w = this.w;
    const int64 = (e: Expr): string => convert(this.expr(e, undefined), e.dtype, 'int64');
    const scopes = new Map<Expr, AccessBound[]>();
    for (const b of bounds) scopes.set(b.nonEmpty, [...(scopes.get(b.nonEmpty) ?? []), b]);
    for (const [nonEmpty, group] of scopes) {
      if (nonEmpty.kind === 'lit' && nonEmpty.value === false) continue;
      w.open(nonEmpty.kind === 'lit' ? '{' : `if (${this.cond(nonEmpty, undefined)}) {`);
      for (const b of group) {
        const view = this.view(b.array);
        w.open('{');
        w.line(`const int64_t lo = ${int64(b.lo)}, hi = ${int64(b.hi)};`);
        w.line(
          `if (lo < 0 || hi >= ${view}.shape[${b.axis}]) return orch::bounds_error(st, ${where}, ${cString(b.array)}, "${b.axisName}", lo, hi, ${view}, ${this.array(b.array).axes.length});`,
        );
        w.close();
      }
      w.close();
    }
  }

  // -------------------------------------------------------------------------------------
  // Loops

  protected vloop(v: VLoop, ctx: PointContext): void {
    const w = this.w;
    const int64 = (e: Expr): string => convert(this.expr(e, undefined), e.dtype, 'int64');
    w.open('{');
    const t = this.tileScope;
    if (t === undefined) {
      w.line(`const int64_t klo = ${int64(v.k.lo)}, khi = ${int64(v.k.hi)};`);
      v.body.forEach((h, n) => {
        w.line(`const int64_t ilo${n} = ${int64(h.i.lo)}, ihi${n} = ${int64(h.i.hi)}, jlo${n} = ${int64(h.j.lo)}, jhi${n} = ${int64(h.j.hi)};`);
      });
    } else {
      // inside a tile: the ranges clipped to it (tiledLoops)
      w.line(`const int64_t klo = kclo_${t}, khi = kchi_${t};`);
      v.body.forEach((_, n) => w.line(`const int64_t ilo${n} = ilo_${t}_${n}, ihi${n} = ihi_${t}_${n}, jlo${n} = jlo_${t}_${n}, jhi${n} = jhi_${t}_${n};`));
    }
    if (v.order === 'PARALLEL') {
      v.body.forEach((h, n) => this.parallelNest(h, n, ctx));
    } else if (this.tileScope === undefined && columnSweep(v, this.arrays)) {
      // (inside a tile, level by level instead: the tile's columns are independent chains
      // a core overlaps, where one column at a time waits on each level's divide)
      this.columnNest(v, ctx);
    } else {
      const points = v.body.map((_, n) => `(ihi${n} - ilo${n}) * (jhi${n} - jlo${n})`).join(' + ') || '0';
      const threaded = this.threaded();
      this.openRegion(threaded, `${points} >= ORCH_OMP_MIN_POINTS`, ctx);
      w.open(v.order === 'FORWARD' ? 'for (int64_t k = klo; k < khi; ++k) {' : 'for (int64_t k = khi - 1; k >= klo; --k) {');
      v.body.forEach((h, n) => this.planeNest(h, n, ctx));
      w.close();
      this.closeRegion(threaded);
    }
    w.close();
  }

  /**
   * A FORWARD/BACKWARD sweep whose columns are independent, column by column: threads over
   * I and J, each walking K in order through every nest. With K contiguous in memory this
   * streams each column instead of striding across planes level by level.
   */
  private columnNest(v: VLoop, ctx: PointContext): void {
    const w = this.w;
    const ij = [...this.order].filter((c) => c !== 'K');
    const threaded = this.threaded();
    this.openRegion(threaded, '(ihi0 - ilo0) * (jhi0 - jlo0) * (khi - klo) >= ORCH_OMP_MIN_POINTS', ctx);
    if (threaded) w.directive('#pragma omp for collapse(2)');
    w.open(this.loopHeader(ij[0], 0));
    w.open(this.loopHeader(ij[1], 0));
    w.open(v.order === 'FORWARD' ? 'for (int64_t k = klo; k < khi; ++k) {' : 'for (int64_t k = khi - 1; k >= klo; --k) {');
    for (const h of v.body) {
      w.open('{');
      this.pointLocals(h, ctx);
      this.stmts(h.body, ctx);
      w.close();
    }
    w.close();
    w.close();
    w.close();
    this.closeRegion(threaded);
  }

  /**
   * Opens code that runs on a team of threads when `cond` holds and on the calling thread
   * otherwise; its worksharing loops are orphaned `omp for`s. The code is a lambda called
   * from either branch: `omp parallel if(false)` would still set up a team of one, which
   * costs a small launch more than its loops (about 0.3 us per launch). It captures by
   * value (with captures by reference, gcc no longer hoisted region masks out of the K
   * loop: del-n damping ran 4x slower), except the error records it must update.
   */
  private openRegion(threaded: boolean, cond: string, ctx: PointContext, byRef: string[] = []): void {
    this.w.open('{');
    const refs = [...byRef, ...(ctx.variableK ? ['vkerr'] : [])].map((r) => `, &${r}`).join('');
    if (threaded) this.w.open(`const auto region = [=${refs}]() {`);
    this.regionCond.push(cond);
  }

  private closeRegion(threaded: boolean): void {
    const w = this.w;
    const cond = this.regionCond.pop();
    if (threaded) {
      w.close('};');
      w.open(`if (${cond}) {`);
      w.directive('#pragma omp parallel');
      w.line('region();');
      w.reopen('} else {');
      w.line('region();');
      w.close();
    }
    w.close();
  }

  /** Loops spread over threads, except inside a tile (a thread runs a whole tile). */
  private threaded(): boolean {
    return this.opts.openmp && this.tileScope === undefined;
  }

  private loopHeader(axis: string, n: number): string {
    if (axis === 'K') return 'for (int64_t k = klo; k < khi; ++k) {';
    const v = axis.toLowerCase();
    return `for (int64_t ${v} = ${v}lo${n}; ${v} < ${v}hi${n}; ++${v}) {`;
  }

  /** A PARALLEL HLoop: a 3-D nest in the preset order, threads over the outer two loops. */
  private parallelNest(h: HLoop, n: number, ctx: PointContext): void {
    const w = this.w;
    const threaded = this.threaded();
    this.openRegion(threaded, `(ihi${n} - ilo${n}) * (jhi${n} - jlo${n}) * (khi - klo) >= ORCH_OMP_MIN_POINTS`, ctx);
    if (threaded) w.directive('#pragma omp for collapse(2)');
    [...(this.tileOrder ?? this.order)].forEach((axis, depth) => {
      // Points of one HLoop are independent, so the innermost loop may be vectorized freely.
      if (depth === 2) w.directive('#pragma GCC ivdep');
      w.open(this.loopHeader(axis, n));
    });
    this.pointLocals(h, ctx);
    this.stmts(h.body, ctx);
    for (let d = 0; d < 3; d++) w.close();
    this.closeRegion(threaded);
  }

  /** One level of a FORWARD/BACKWARD HLoop; the `omp for` ends with the barrier between nests. */
  private planeNest(h: HLoop, n: number, ctx: PointContext): void {
    const w = this.w;
    const ij = [...this.order].filter((c) => c !== 'K');
    if (this.threaded()) w.directive('#pragma omp for');
    w.open(this.loopHeader(ij[0], n));
    w.directive('#pragma GCC ivdep');
    w.open(this.loopHeader(ij[1], n));
    this.pointLocals(h, ctx);
    this.stmts(h.body, ctx);
    w.close();
    w.close();
  }

  // -------------------------------------------------------------------------------------
  // Point statements

  protected stmts(body: readonly Stmt[], ctx: PointContext): void {
    for (const s of body) this.stmt(s, ctx);
  }

  private stmt(s: Stmt, ctx: PointContext): void {
    const w = this.w;
    this.stmtLoc = s.loc;
    switch (s.kind) {
      case 'assign': {
        const a = this.array(s.target);
        const value = convert(this.expr(s.value, ctx), s.value.dtype, a.dtype);
        const stored = a.dtype === 'bool' ? `static_cast<uint8_t>(${value})` : value;
        this.mapped(s.loc, () => w.line(`${this.fieldRef(s.target, [0, 0, s.kOffset ?? 0], ctx)} = ${stored};`));
        return;
      }
      case 'if':
        this.mapped(s.loc, () => w.open(`if (${this.cond(s.cond, ctx)}) {`));
        this.stmts(s.then, ctx);
        if (s.else.length) {
          w.reopen('} else {');
          this.stmts(s.else, ctx);
        }
        w.close();
        return;
      case 'while':
        // after a failed variable-K read (which reads 0), a loop must still end
        this.mapped(s.loc, () => w.open(ctx.variableK ? `while (${this.cond(s.cond, ctx)} && !${this.variableKFailed()}) {` : `while (${this.cond(s.cond, ctx)}) {`));
        this.stmts(s.body, ctx);
        w.close();
        return;
      case 'region':
        this.mapped(s.loc, () => w.open(`if (${regionCondition(s.regions)}) {`));
        this.stmts(s.body, ctx);
        w.close();
        return;
      case 'let': {
        const dt = ctx.locals.get(s.name);
        if (!dt) throw new Error(`let of '${s.name}', which is not a local of its loop nest`);
        this.mapped(s.loc, () => w.line(`${this.local(s.name)} = ${convert(this.expr(s.value, ctx), s.value.dtype, dt)};`));
        return;
      }
      case 'check':
        this.check(s, ctx);
        return;
    }
  }

  /** A debug check of the value just written; reports name the program, stencil, line and i, j, k. */
  protected check(s: CheckStmt, ctx: PointContext): void {
    const w = this.w;
    const { value, test, format } = this.checkParts(s, ctx);
    const origin = ctx.origins[s.target] ?? [];
    const idx = axisIndices(this.array(s.target).axes).map((ax, pos) => `(long long)(${convert(this.expr(origin[pos] ?? { kind: 'lit', value: 0, dtype: 'int64' }, undefined), 'int64', 'int64')} + ${'ijk'[ax]}${ax === 2 && s.kOffset ? ` + ${s.kOffset}` : ''})`);
    const args = [...(s.check.test === 'nan' ? [] : [value]), ...idx];
    this.mapped(s.loc, () => w.open(`if (${test}) {`));
    w.line('char msg[512];');
    w.line(`std::snprintf(msg, sizeof msg, ${format}${args.length ? `, ${args.join(', ')}` : ''});`);
    w.line(`orch::debug_report(st, ${s.check.action === 'abort' ? 'true' : 'false'}, msg);`);
    w.close();
  }

  /**
   * The checked value (as a double), the failing test, and the report's printf format (a
   * C string): `%g` for the value of a 'negative' check, then `%lld` per array index.
   */
  protected checkParts(s: CheckStmt, ctx: PointContext): { value: string; test: string; format: string } {
    const a = this.array(s.target);
    const value = `static_cast<double>(${this.fieldRef(s.target, [0, 0, s.kOffset ?? 0], ctx)})`;
    const test = s.check.test === 'nan' ? `std::isnan(${value})` : `${value} < ${floatLiteral(s.check.threshold, 'float64')}`;
    const fmtIdx = axisIndices(a.axes).map((ax) => `${'ijk'[ax]}=%lld`).join(', ');
    const what = s.check.test === 'nan' ? 'is NaN' : `is %g, below ${s.check.threshold}`;
    const msg = `debug check: ${s.target} ${what} at ${fmtIdx} in program ${s.check.program}, stencil ${s.check.stencil} (${s.loc.file}:${s.loc.line})`;
    return { value, test, format: cString(msg.replace(/%(?!lld|g)/g, '%%')) };
  }

  /** `p_x[...]` for array `name` at `offset` from the current point (i, j, k). */
  private fieldRef(name: string, offset: Offset, ctx: PointContext | undefined): string {
    const decl = ctx?.hoisted.get(name);
    if (!decl) throw new Error(`array '${name}' is accessed outside a launch that addresses it`);
    const terms = axisIndices(decl.axes).map((a, pos) => {
      const v = 'ijk'[a];
      const o = offset[a];
      const index = o === 0 ? v : o > 0 ? `(${v} + ${o})` : `(${v} - ${-o})`;
      return `${index} * ${this.stride(name, pos)}`;
    });
    return `${this.ptr(name)}[${terms.join(' + ') || '0'}]`;
  }

  /** A checked read of `name` at `offset` plus the variable K offset `kOffset` (see orch::vk_read). */
  protected variableKRead(name: string, offset: Offset, kOffset: Expr, loc: SourceLoc | undefined, ctx: PointContext | undefined): string {
    const r = this.variableKParts(name, offset, kOffset, loc, ctx);
    return `orch::vk_read(${r.base}, ${r.stride}, ${r.idx}, ${r.lo}, ${r.hi}, vkerr, ${r.head}, ${r.tail}, i, j, k)`;
  }

  /**
   * What a checked read at a variable K offset needs: the column's base pointer, the K
   * stride, the K index (relative to the origin), the array's K limits, and its error
   * message around the numbers (`head` and `tail`, C strings, as the interpreter words it).
   */
  protected variableKParts(name: string, offset: Offset, kOffset: Expr, loc: SourceLoc | undefined, ctx: PointContext | undefined) {
    const decl = ctx?.hoisted.get(name);
    if (!decl) throw new Error(`array '${name}' is accessed outside a launch that addresses it`);
    const letters = axisIndices(decl.axes);
    const kpos = letters.indexOf(2);
    if (kpos < 0) throw new Error(`array '${name}' (${decl.axes}) is read at a variable K offset but has no K axis`);
    const terms = letters.flatMap((a, pos) => {
      if (a === 2) return [];
      const v = 'ij'[a];
      const o = offset[a];
      return [`${o === 0 ? v : o > 0 ? `(${v} + ${o})` : `(${v} - ${-o})`} * ${this.stride(name, pos)}`];
    });
    const base = terms.length ? `${this.ptr(name)} + ${terms.join(' + ')}` : this.ptr(name);
    const dk = convert(this.expr(kOffset, ctx), kOffset.dtype, 'int64');
    const idx = offset[2] === 0 ? `k + ${dk}` : `k + ${offset[2]} + ${dk}`;
    // same diagnostic as the interpreter's check (core/interpreter/Interpreter.ts, index)
    const located = loc ? locatedErrorPrefix('E_OUT_OF_BOUNDS', loc) : '';
    const head = cString(`${located}stencil '${this.launchName}': field '${name}' is read at a variable K offset at K index `);
    const tail = cString(locatedErrorHint(VARIABLE_K_HINT));
    return { base, stride: this.stride(name, kpos), idx, lo: this.kLimit(name, 'lo'), hi: this.kLimit(name, 'hi'), head, tail };
  }

  // -------------------------------------------------------------------------------------
  // Expressions: every result is a parenthesized C++ expression of the node's dtype.

  private cond(e: Expr, ctx: PointContext | undefined): string {
    return convert(this.expr(e, ctx), e.dtype, 'bool');
  }

  protected expr(e: Expr, ctx: PointContext | undefined): string {
    const sub = (x: Expr, to: DType): string => convert(this.expr(x, ctx), x.dtype, to);
    switch (e.kind) {
      case 'lit': {
        if (e.dtype === 'bool') return (typeof e.value === 'boolean' ? e.value : e.value !== 0) ? 'true' : 'false';
        const v = typeof e.value === 'boolean' ? Number(e.value) : e.value;
        return isFloat(e.dtype) ? floatLiteral(v, e.dtype) : intLiteral(v, e.dtype);
      }
      case 'scalar': {
        const local = ctx?.locals.get(e.name);
        if (local) return convert(this.local(e.name), local, e.dtype);
        const v = this.scalars.get(e.name);
        if (!v) throw new Error(`reference to unknown scalar '${e.name}'`);
        return convert(this.scalar(v.name), v.dtype, e.dtype);
      }
      case 'field': {
        const a = this.array(e.name);
        const ref = e.kOffset ? this.variableKRead(e.name, e.offset, e.kOffset, e.loc ?? this.stmtLoc, ctx) : this.fieldRef(e.name, e.offset, ctx);
        return convert(a.dtype === 'bool' ? `(${ref} != 0)` : ref, a.dtype, e.dtype);
      }
      case 'shape': {
        const a = this.array(e.name);
        if (!Number.isInteger(e.axis) || e.axis < 0 || e.axis >= a.axes.length) {
          throw new Error(`shape of '${e.name}' along axis ${e.axis}, which it does not have`);
        }
        return convert(`${this.view(e.name)}.shape[${e.axis}]`, 'int64', e.dtype);
      }
      case 'cast':
        return sub(e.arg, e.dtype);
      case 'unary': {
        if (e.op === 'not') return `(!${sub(e.arg, 'bool')})`;
        const x = sub(e.arg, e.dtype);
        if (e.op === '+') return x;
        return isInt(e.dtype) ? `orch::ineg<${CTYPE[e.dtype]}>(${x})` : `(-${x})`;
      }
      case 'ternary':
        return `(${sub(e.cond, 'bool')} ? ${sub(e.then, e.dtype)} : ${sub(e.else, e.dtype)})`;
      case 'binary':
        return this.binary(e.op, e.left, e.right, e.dtype, ctx);
      case 'call':
        return this.call(e, ctx);
    }
  }

  private binary(op: string, left: Expr, right: Expr, dtype: DType, ctx: PointContext | undefined): string {
    const T = CTYPE[dtype];
    const both = (to: DType): [string, string] => [
      convert(this.expr(left, ctx), left.dtype, to),
      convert(this.expr(right, ctx), right.dtype, to),
    ];
    switch (op) {
      case '+':
      case '-':
      case '*': {
        const [l, r] = both(dtype);
        if (isInt(dtype)) return `orch::${{ '+': 'iadd', '-': 'isub', '*': 'imul' }[op]}<${T}>(${l}, ${r})`;
        if (isFloat(dtype)) return `(${l} ${op} ${r})`;
        break;
      }
      case '/': {
        const [l, r] = both(dtype);
        if (isFloat(dtype)) return `(${l} / ${r})`;
        break;
      }
      case '//': {
        const [l, r] = both(dtype);
        if (isInt(dtype)) return `orch::floordiv<${T}>(${l}, ${r})`;
        if (isFloat(dtype)) return `std::floor(${l} / ${r})`;
        break;
      }
      case '%': {
        const [l, r] = both(dtype);
        if (isInt(dtype)) return `orch::imod<${T}>(${l}, ${r})`;
        if (isFloat(dtype)) return `orch::fmod_py<${T}>(${l}, ${r})`;
        break;
      }
      case '**':
        return this.power(left, right, dtype, ctx);
      case '<':
      case '<=':
      case '>':
      case '>=':
      case '==':
      case '!=': {
        const [l, r] = both(commonType(left.dtype, right.dtype));
        return convert(`(${l} ${op} ${r})`, 'bool', dtype);
      }
      case 'and':
      case 'or': {
        const [l, r] = both('bool');
        return convert(`(${l} ${op === 'and' ? '&&' : '||'} ${r})`, 'bool', dtype);
      }
    }
    throw new Error(`operator '${op}' is not defined for ${dtype}`);
  }

  /** `**` / pow: floats via double pow (as the interpreter does), ints by repeated squaring. */
  private power(left: Expr, right: Expr, dtype: DType, ctx: PointContext | undefined): string {
    const common = commonType(left.dtype, right.dtype);
    const c = common === 'bool' ? 'int64' : common;
    const l = convert(this.expr(left, ctx), left.dtype, isFloat(c) ? 'float64' : c);
    const r = convert(this.expr(right, ctx), right.dtype, isFloat(c) ? 'float64' : c);
    if (isFloat(c)) return convert(`std::pow(${l}, ${r})`, 'float64', dtype);
    return convert(`orch::ipow<${CTYPE[c]}>(${l}, ${r})`, c, dtype);
  }

  private call(e: Extract<Expr, { kind: 'call' }>, ctx: PointContext | undefined): string {
    const arity = e.fn === 'min' || e.fn === 'max' || e.fn === 'mod' || e.fn === 'pow' || e.fn === 'arctan2' ? 2 : 1;
    if (e.args.length !== arity) throw new Error(`${e.fn}() takes ${arity} argument(s), got ${e.args.length}`);
    const [a, b] = e.args;
    const T = CTYPE[e.dtype];
    const arg = (x: Expr, to: DType): string => convert(this.expr(x, ctx), x.dtype, to);
    switch (e.fn) {
      case 'abs':
        if (isInt(e.dtype)) return `orch::iabs<${T}>(${arg(a, e.dtype)})`;
        if (isFloat(e.dtype)) return `std::fabs(${arg(a, e.dtype)})`;
        break;
      case 'min':
      case 'max':
        return `orch::${e.fn}<${T}>(${arg(a, e.dtype)}, ${arg(b, e.dtype)})`;
      case 'mod':
        return this.binary('%', a, b, e.dtype, ctx);
      case 'pow':
        return this.power(a, b, e.dtype, ctx);
      case 'arctan2':
        return convert(`std::atan2(${arg(a, 'float64')}, ${arg(b, 'float64')})`, 'float64', e.dtype);
      case 'isnan':
      case 'isinf':
      case 'isfinite':
        return convert(`std::${e.fn}(${arg(a, 'float64')})`, 'bool', e.dtype);
      case 'round_away_from_zero': {
        // GT4Py's numpy definition, copysign(floor(|x| + 0.5), x), not std::round: they differ at 0.49999999999999994
        const x = arg(a, 'float64');
        return convert(`std::copysign(std::floor(std::fabs(${x}) + 0.5), ${x})`, 'float64', e.dtype);
      }
      default: {
        // float32 math is done in double and rounded once, like the interpreter (JS has
        // only double math), so both backends agree to the libm's last bit.
        const fn = MATH_FN[e.fn];
        if (fn) return convert(`std::${fn}(${arg(a, 'float64')})`, 'float64', e.dtype);
      }
    }
    throw new Error(`builtin ${e.fn}() is not defined for ${e.dtype}`);
  }
}

function regionCondition(regions: readonly HorizontalRegion[]): string {
  const axisCond = (v: 'i' | 'j', dom: string, start: AxisBound | null, end: AxisBound | null): string[] => {
    const bound = (b: AxisBound): string => {
      const o = Math.trunc(b.offset);
      if (b.level === 'start') return o < 0 ? `(${o}LL)` : `${o}LL`;
      return o === 0 ? dom : o > 0 ? `(${dom} + ${o})` : `(${dom} - ${-o})`;
    };
    const parts: string[] = [];
    if (start) parts.push(`${v} >= ${bound(start)}`);
    if (end) parts.push(`${v} < ${bound(end)}`);
    return parts;
  };
  const boxes = regions.map((r) => {
    const parts = [...axisCond('i', 'dom0', r.i.start, r.i.end), ...axisCond('j', 'dom1', r.j.start, r.j.end)];
    return parts.length ? `(${parts.join(' && ')})` : 'true';
  });
  return boxes.length ? boxes.join(' || ') : 'false';
}

function collectTargets(body: readonly Stmt[], out: Set<string>): void {
  for (const s of body) {
    if (s.kind === 'assign') out.add(s.target);
    else if (s.kind === 'if') {
      collectTargets(s.then, out);
      collectTargets(s.else, out);
    } else if (s.kind === 'while' || s.kind === 'region') collectTargets(s.body, out);
  }
}

/**
 * Whether the columns of a FORWARD/BACKWARD sweep are independent, so it may run column
 * by column: its nests share one IJ range, every array it writes has both I and J (so
 * each column writes its own elements), and nothing it writes is read at a horizontal
 * offset (which would see a neighbour column at another level).
 */
function columnSweep(v: VLoop, arrays: Map<string, ArrayDecl>): boolean {
  const first = v.body[0];
  if (!first || v.body.some((h) => JSON.stringify([h.i, h.j]) !== JSON.stringify([first.i, first.j]))) return false;
  const bodies = v.body.flatMap((h) => h.body);
  const written = writes(bodies);
  for (const name of written) {
    const axes = arrays.get(name)?.axes ?? '';
    if (!axes.includes('I') || !axes.includes('J')) return false;
  }
  return !reads(bodies).some((r) => written.has(r.name) && (r.offset[0] !== 0 || r.offset[1] !== 0));
}

/** The loop order of a level by level sweep: K outermost, then I and J as in `order`. */
function planeOrder(order: string): string {
  return `K${[...order].filter((c) => c !== 'K').join('')}`;
}

interface TileBox {
  vi: number;
  n: number;
  i: [number, number];
  j: [number, number];
  k: [number, number];
}

/** Per tile-local array: the nests touching it, with the smallest and largest I and J offsets they touch it at. */
function tileLocalBoxes(s: LaunchStmt, tile: Tiling): Map<string, TileBox[]> {
  const out = new Map<string, TileBox[]>();
  const local = new Set(tile.local.map((l) => l.name));
  s.loops.forEach((v, vi) =>
    v.body.forEach((h, n) => {
      const touched = new Map<string, number[][]>();
      const add = (name: string, offset: readonly number[]) => {
        if (local.has(name)) touched.set(name, [...(touched.get(name) ?? []), [...offset]]);
      };
      // tile-local arrays are never read at variable K offsets (tiling pass)
      for (const r of reads(h.body)) add(r.name, r.offset);
      for (const name of writes(h.body)) add(name, [0, 0, 0]);
      for (const [name, offs] of touched) {
        const span = (a: number): [number, number] => [Math.min(...offs.map((o) => o[a])), Math.max(...offs.map((o) => o[a]))];
        out.set(name, [...(out.get(name) ?? []), { vi, n, i: span(0), j: span(1), k: span(2) }]);
      }
    }),
  );
  return out;
}

export type CheckStmt = Extract<Stmt, { kind: 'check' }>;

/** Whether point statements `body` hold a debug check that `test` accepts. */
export function hasCheck(body: readonly Stmt[], test: (c: DebugCheck) => boolean = () => true): boolean {
  return body.some((x) =>
    x.kind === 'check' ? test(x.check) : x.kind === 'if' ? hasCheck(x.then, test) || hasCheck(x.else, test) : x.kind === 'while' || x.kind === 'region' ? hasCheck(x.body, test) : false,
  );
}

/** Whether a launch holds a debug check that `test` accepts. */
export function launchHasCheck(s: LaunchStmt, test?: (c: DebugCheck) => boolean): boolean {
  return s.loops.some((v) => v.body.some((h) => hasCheck(h.body, test)));
}

export function locText(loc: SourceLoc): string {
  return `${loc.file}:${loc.line}:${loc.col}`;
}

// ---------------------------------------------------------------------------------------

/** The public header: the ABI, and the argument order of `run` for this program. */
/** More of the ABI a backend exports: comment lines (` *   ...`) and C declarations. */
export interface HeaderExtras {
  doc: string[];
  decls: string[];
}

export function programHeader(program: Program, symbol: string, signature: ProgramSignature, extras: HeaderExtras = { doc: [], decls: [] }): string {
  const guard = `${symbol.toUpperCase()}_H`;
  const storage: Record<DType, string> = {
    float64: 'const double*', float32: 'const float*', int32: 'const int32_t*', int64: 'const int64_t*', bool: 'const uint8_t* (0 or 1)',
  };
  const callbackRows = (program.callbacks ?? []).map(
    (cb, n) => ` *   callback ${n}  ${commentText(cb.name)}: ${callbackPointerType(cb)}${cb.result ? '  (result through the last pointer)' : ''}`,
  );
  const rows = signature.params.map((p, n) =>
    p.kind === 'field'
      ? ` *   args[${n}]  ${commentText(p.name)}: field ${p.dtype} ${p.axes}  (orch_array*)`
      : ` *   args[${n}]  ${commentText(p.name)}: scalar ${p.dtype}  (${storage[p.dtype]})`,
  );
  return `/*
 * Generated by orch for program ${commentText(program.name)}. Do not edit.
 *
 * ABI (plain C; one handle per concurrent caller, a handle is not reentrant):
 *   void*       ${symbol}_init(void);
 *       Allocates a handle (error buffer, persistent state); NULL if out of memory.
 *   int         ${symbol}_set_callback(void* handle, int index, void* fn);
 *       Registers host callback \`index\` (list below) right after init; run fails while
 *       one is missing. A callback returns 0 on success and nonzero to report failure
 *       (e.g. a Python exception), which ends the run with an error naming it.
 *   int         ${symbol}_run(void* handle, void* const* args);
 *       Runs the program once. args[n] points at parameter n (order below): an orch_array
 *       for fields (shape/strides in elements, see orch_runtime.h), the value for scalars.
 *       Array accesses are checked before each stencil launch. Returns 0 on success,
 *       nonzero on error, with the message in ${symbol}_last_error.
 *   const char* ${symbol}_last_error(void* handle);
 *   void        ${symbol}_exit(void* handle);
 *       Frees the handle.
 *   const char* ${symbol}_signature(void);
 *       JSON: {"abi":2,"program":...,"params":[{"name","kind":"field"|"scalar","dtype","axes"?}],
 *              "callbacks":[{"index","name","function":{"file","name"},"params","result"}]}
${extras.doc.map((l) => `${l}\n`).join('')} *
 * Parameters of ${symbol}_run:
${rows.join('\n') || ' *   (none)'}
 *
 * Callbacks (called in program order, from the thread that called run):
${callbackRows.join('\n') || ' *   (none)'}
 */
#ifndef ${guard}
#define ${guard}

#include "orch_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

void* ${symbol}_init(void);
int ${symbol}_set_callback(void* handle, int index, void* fn);
int ${symbol}_run(void* handle, void* const* args);
const char* ${symbol}_last_error(void* handle);
void ${symbol}_exit(void* handle);
const char* ${symbol}_signature(void);
${extras.decls.map((l) => `${l}\n`).join('')}
#ifdef __cplusplus
}
#endif

#endif
`;
}
