import { didYouMean, OrchError, type Diagnostic } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';

/** What a code means to a user, and what to do about it (the table of docs/troubleshooting.md). */
interface CodeInfo {
  means: string;
  todo: string;
}

/**
 * Every diagnostic code orch reports, declared once (after Rollup's src/utils/logs.ts).
 * `diagnostic()` takes only these, so no code is built at run time; the factories beside
 * this file (one per distinct error, a file per area) are the only callers outside it.
 * docs/troubleshooting.md shows this table and core/diagnostics/codes.test.ts keeps the two in sync.
 */
export const CODES = {
  // the Python frontend: modules, names, values
  E_SYNTAX: { means: 'the module is not valid Python', todo: 'fix the syntax at the caret' },
  E_MODULE_NOT_FOUND: { means: 'a module path that cannot be read', todo: 'check the path; modules are .py files' },
  E_IMPORT_CYCLE: { means: 'modules import each other in a cycle', todo: 'break the cycle; orch evaluates each module top level once' },
  E_MODULE_RAISE: { means: 'module code raises at compile time', todo: 'check the constants and environment variables the raising branch depends on' },
  E_UNKNOWN_NAME: { means: 'a name or attribute that is not defined (with a did-you-mean)', todo: 'fix the name, or import it' },
  E_UNKNOWN_ATTRIBUTE: { means: 'an attribute a compile-time value (a namespace, class or enum external) does not have', todo: 'fix the attribute name, or add it to the value' },
  E_UNKNOWN_CALL: { means: 'a call of something orch cannot call or inline', todo: 'call a stencil, a gtscript function, a program, a callback or a builtin' },
  E_UNSUPPORTED: { means: 'a Python construct orch does not compile (lists, dicts, I/O, early returns ...)', todo: 'rewrite it, or move it into a @callback' },
  E_UNSUPPORTED_BUILTIN: { means: 'a function that is not a gtscript builtin, used in a stencil', todo: 'use a gtscript math builtin, or compute the value outside the stencil' },
  E_NOT_CONSTANT: { means: 'a value that must be known at compile time is not', todo: 'use compile-time values (constants, externals, compiletime arguments)' },
  E_CONST_CONVERSION: { means: 'int() or float() of a compile-time value that is not a number', todo: 'check the environment variable or constant it reads' },
  E_CONST_DIV_ZERO: { means: 'a division by zero in a compile-time expression', todo: 'check the constants involved' },
  E_CONST_LOOKUP: { means: 'a compile-time lookup (enum member, dict key, index) that does not exist', todo: 'use one of the members listed' },
  E_ENV_UNSET: { means: 'os.environ[...] of a variable that is not set', todo: 'set it, or read it with os.environ.get(name, default)' },
  E_RECURSION: { means: 'compile-time evaluation recursed too deeply', todo: 'module code evaluated at compile time cannot recurse' },
  E_RANGE: { means: 'range() with a zero step', todo: 'use a positive or negative step' },
  E_NO_ENTRIES: { means: 'orch build m.py where m.py holds no stencil or program (it only imports one, say)', todo: 'build the module the message names, or decorate a function with @stencil/@program' },
  E_ENTRY_NOT_FOUND: { means: 'the entry named (orch run file.py:name) is no stencil or program of the module', todo: 'use the suggested name' },
  E_ENTRY_KIND: { means: 'the entry named is not something orch can build (a class without __call__ ...)', todo: 'name a stencil, a @program or a program class' },
  E_COMPILE_ASSERT: { means: 'a compile_assert failed for the values this build uses', todo: 'build with externals or constants that satisfy the assertion' },
  // externals and compile-time arguments
  E_EXTERNAL_MISSING: { means: 'from __externals__ import X without a value for X', todo: 'pass --externals \'{"X": ...}\', externals= on the stencil, or the config\'s externals' },
  E_EXTERNAL_FUNCTION: { means: 'an external naming a function whose module cannot be found', todo: 'add its folder to pythonPath in orch.config.ts or to PYTHONPATH' },
  E_EXTERNALS_FORM: { means: 'externals= that is not a dict of names to values', todo: 'write externals={"NAME": value, ...} or a module-level dict' },
  E_COMPILETIME_MISSING: { means: 'a compile-time program argument without a value', todo: 'pass --define name=value, or give it a default' },
  E_BACKEND_UNKNOWN: { means: 'a backend= name orch maps to no preset', todo: 'use numpy (Python mode), gt:cpu_ifirst, gt:cpu_kfirst, dace:cpu (CPU), gt:gpu, dace:gpu or cuda (CUDA)' },
  E_BACKEND_PRESET: { means: "a stencil's backend= asks for other hardware than the build's preset", todo: 'pass the --preset the backend names, or change backend=' },
  E_BACKEND_PYTHON: { means: "a compiled build of a stencil whose backend='numpy' runs it in Python mode", todo: 'run it with orch run --mode python, or give it a compiled backend' },
  // stencils
  E_STENCIL_STMT: { means: 'a stencil statement outside a with computation(...) block, or of a kind stencils cannot hold', todo: 'wrap it in with computation(PARALLEL), interval(...):' },
  E_STENCIL_EMPTY: { means: 'a stencil without a computation', todo: 'add a with computation(PARALLEL), interval(...): block' },
  E_ORDER: { means: 'an iteration order other than PARALLEL, FORWARD or BACKWARD', todo: 'import PARALLEL, FORWARD, BACKWARD from gt4py.cartesian.gtscript' },
  E_INTERVAL: { means: 'an interval(...) orch cannot read', todo: 'write interval(...) or interval(start, end)' },
  E_INTERVAL_ORDER: { means: 'intervals written out of the order a FORWARD or BACKWARD computation runs them', todo: 'write the intervals in the order they run, as GT4Py requires' },
  E_INTERVAL_OVERLAP: { means: 'two intervals of one computation share levels', todo: 'split the work into separate computations, or adjust the bounds' },
  E_EMPTY_INTERVAL: { means: 'an interval that needs more K levels than the call\'s domain has', todo: 'call the stencil with a larger K domain, or move the computation' },
  E_INTERVAL_BOUNDS: { means: 'an interval whose bounds, known at run time, reach outside the call\'s K domain', todo: 'pass bounds between 0 and the K size of the domain' },
  E_REGION: { means: 'a horizontal(region[...]) orch cannot read', todo: 'write region[i_start, :] or region[i_start - 1 : i_start + 1, j_end]' },
  E_DATA_DIMS: { means: 'a field with data dimensions indexed or assigned in a way GT4Py does not define (wrong index count, index out of range, mismatched extents)', todo: 'index every data dimension within its extent, or assign whole fields of the same data dimensions' },
  E_OFFSET: { means: 'a field access with the wrong number or kind of offsets', todo: 'give one offset per axis of the field' },
  E_AXIS_VALUE: { means: 'the axis I or J used as a value, or K outside a stencil', todo: 'read only K as a value, inside a stencil; pass other indices in an int field or a scalar' },
  E_NOT_A_FIELD: { means: 'a field was expected', todo: 'pass a field argument or a temporary' },
  E_ANNOTATION: { means: 'a type annotation where only a new temporary may carry one', todo: 'declare the temporary first, then assign at an offset' },
  E_TEMP_AXES: { means: 'a temporary declared with axes other than IJK or IJ', todo: 'type temporaries Field[IJK, dtype] or Field[IJ, dtype], as GT4Py does' },
  E_WRITE_AXES: { means: 'a field written in a computation whose parallel axes it lacks', todo: 'write fields that have every parallel axis of the computation' },
  E_WRITE_OFFSET: { means: 'a write at an offset (GT4Py rejects I/J offsets and K offsets in PARALLEL)', todo: 'write at the center; the hint shows the equivalent rewrite' },
  E_WRITE_READ_OFFSET: { means: 'a field (or a temporary from an earlier block) read at a horizontal offset in an interval that also writes it', todo: 'write the new values to another field or a temporary' },
  E_SELF_ASSIGN_OFFSET: { means: 'a field assigned from its own value at a horizontal offset', todo: 'assign to a new temporary and use that' },
  E_PARALLEL_K_OFFSET: { means: 'a field written in a PARALLEL computation interval of more than one level and read in it at another (or a variable) K offset', todo: 'use computation(FORWARD) or computation(BACKWARD), or write the new values to another field' },
  E_NOT_GTSCRIPT_FUNCTION: { means: 'a stencil calls a function that is not decorated with @gtscript.function (GT4Py raises TypeError)', todo: 'decorate the helper with @gtscript.function' },
  E_ASSIGN_SCALAR: { means: 'an assignment to a scalar argument', todo: 'assign the value to a new temporary name instead' },
  E_RETURN: { means: 'a return anywhere but at the end of a gtscript function', todo: 'stencils write their results into fields' },
  E_UNPACK: { means: 'a tuple unpacking orch cannot match (names against axes or values)', todo: 'unpack one name per element' },
  E_SHAPE_INDEX: { means: 'field.shape[n] past the field\'s axes', todo: 'use an index below the number of axes' },
  // programs
  E_PROGRAM_STMT: { means: 'a program statement without effect, or of a kind programs cannot hold', todo: 'call a stencil, a program or a callback, or assign a value' },
  E_ASSIGN_TARGET: { means: 'a program assignment to something other than a name', todo: 'fields are written by stencils; assign scalars to names' },
  E_PARAM: { means: 'a program or callback declared with *args or **kwargs', todo: 'declare every argument by name' },
  E_PARAM_TYPE: { means: 'a program argument without a usable type annotation', todo: 'annotate fields (FloatField), scalars (Float, int, bool) and compile-time values (compiletime(int))' },
  E_CALL_ARGS: { means: 'a call with arguments that do not match what it takes', todo: 'pass the arguments the callee declares' },
  E_CALL_IN_CONDITION: { means: 'a function call in an if or while condition that cannot be inlined there', todo: 'assign the result to a temporary first and test the temporary' },
  E_NOT_A_VALUE: { means: 'a field used as a value in a program', todo: 'fields are passed to stencils; read them inside a stencil' },
  E_ALIAS_IN_FLOW: { means: 'a name bound to a field only on some runtime paths', todo: 'bind field names outside runtime if/while/for' },
  E_ALIAS_ORIGIN: { means: 'one field passed twice to a stencil with different origins', todo: 'pass the field once, or use one origin for both parameters' },
  E_DOMAIN: { means: 'a domain= that is not three sizes', todo: 'write domain=(nx, ny, nz)' },
  E_TEMPORARY_SHAPE: { means: 'a temporary whose shape is not known when the program starts', todo: 'use compile-time values, scalar arguments or field shapes' },
  E_CLASS_FORM: { means: 'a program class without __call__', todo: 'define __call__(self, fields..., scalars...) with the program body' },
  E_CLASS_INIT: { means: 'a program class __init__ orch cannot evaluate', todo: 'declare every constructor argument by name and keep __init__ to assignments' },
  E_CLASS_INSTANCE: { means: 'an object created inside a program', todo: 'create objects in module code or in __init__' },
  E_CLOSURE_TYPE: { means: 'a closure value of a Python type orch cannot compile', todo: 'the hint says what to pass instead' },
  E_INDEX: { means: 'an index out of range of a compile-time tuple', todo: 'use an index inside the tuple' },
  E_RUNTIME_LIST: { means: 'a list or tuple built at run time in a program', todo: 'call the stencil once per field (unroll the loop), or loop over range(...)' },
  E_CLOSURE: { means: 'an orchestrated component\'s closure that does not match its module (a class or attribute it names is missing)', todo: 'rebuild the closure with orch.ndsl from the current module' },
  // callbacks
  E_CALLBACK_BODY: { means: 'a callback body with statements orch cannot run on the host', todo: 'keep callbacks to scalar arithmetic, or call the program from Python' },
  E_CALLBACK_CALL: { means: 'a callback called inside an expression', todo: 'assign its result to a name first, then use the name' },
  E_CALLBACK_SIGNATURE: { means: 'a callback whose parameters or result orch cannot pass', todo: 'declare every parameter by name with a scalar type' },
  E_CALLBACK_HOST: { means: 'a callback orch cannot run itself', todo: 'call the program from Python (the orch package calls the real function)' },
  E_CALLBACK_MISSING: { means: 'a library whose callback has no host implementation', todo: 'rebuild the program with this version of orch' },
  E_CALLBACK_RAISED: { means: 'a callback raised while the program ran', todo: 'fix the callback, or the values it was called with' },
  E_CALLBACK_RESULT: { means: 'a callback returned something other than what it declares', todo: 'return a value of the declared type' },
  // halo exchanges
  E_HALO_ARGS: { means: 'halo_update called with arguments it does not take', todo: 'write halo_update(q, n_halo)' },
  E_HALO_FIELD: { means: 'a halo exchange of a field without I and J axes', todo: 'exchange IJK or IJ fields' },
  E_HALO_WIDTH: { means: 'a halo width outside the arrays\' halo', todo: 'exchange fewer points, or build with a wider --halo' },
  E_HALO_START: { means: 'a halo_update_start that is never waited for in its block', todo: 'call halo_update_wait with the same fields later in the same block' },
  E_HALO_WAIT: { means: 'a halo_update_wait without a matching halo_update_start before it', todo: 'call halo_update_start with the same fields first, in the same block' },
  E_HALO_IN_FLIGHT: { means: 'a field exchanged again while its exchange is in flight', todo: 'call halo_update_wait for it first' },
  E_HALO_DIVERGED: { means: 'ranks reached different halo exchanges', todo: 'keep runtime conditions around halo updates equal on all ranks' },
  E_HALO_SHAPE: { means: 'ranks exchange fields of different local shapes', todo: 'divide the global domain evenly' },
  E_LAYOUT_RANKS: { means: 'the run has another number of ranks than the layout', todo: 'start as many ranks as the layout has, or pass the layout of this run' },
  E_LAYOUT_UNSUPPORTED: { means: 'a rank layout orch does not support', todo: 'use 1x1, or at least 2 ranks along each axis (as NDSL requires)' },
  // config, presets, plugins
  E_CONFIG_KEY: { means: 'a misspelt or unknown config key', todo: 'see config.md' },
  E_CONFIG_VALUE: { means: 'a config value of the wrong kind', todo: 'see config.md' },
  E_CONFIG_LOAD: { means: 'a config file that does not load', todo: 'fix the error in the config file; it must export default defineConfig({...})' },
  E_PRESET_UNKNOWN: { means: '--preset or preset names no preset', todo: 'use one of the names listed' },
  E_OPTION: { means: 'a codegen option orch cannot use (a loop order that is not a permutation of IJK ...)', todo: 'fix the option in the preset or orch.config.ts' },
  E_CUDA_ARCH: { means: 'a CUDA architecture orch cannot read, or none found', todo: 'set it to an architecture such as sm_90' },
  E_PLUGIN: { means: 'a plugin threw; the message names the plugin and the hook', todo: 'fix the plugin (plugins.md)' },
  E_INTERNAL: { means: 'a stage found no product of the stage before it (a bug in orch, or a plugin that replaced a stage)', todo: 'report it with the module that triggers it' },
  E_IR_PARSE: { means: 'IR text (a pass test, a dump) that does not parse', todo: 'fix the text under the caret; IR text is what --print-ir-after prints' },
  E_IR_INVALID: { means: 'a pass left IR that does not verify', todo: 'a bug in the pass named; --verify-ir finds the pass, --print-ir-after=all shows its IR' },
  // toolchain and cache
  E_CXX: { means: 'the C++ compiler rejected generated code', todo: 'see Compiler errors below; --verbose shows the compiler output' },
  W_CXX: { means: 'the C++ compiler warned about generated code', todo: '--verbose shows the compiler output' },
  E_TOOLCHAIN: { means: 'the C++ or CUDA compiler is missing or does not run', todo: 'install it, or set compiler.cxx' },
  E_TOOLCHAIN_TIMEOUT: { means: 'a compiler that did not finish within compiler.timeoutS and was stopped', todo: 'raise compiler.timeoutS in orch.config.ts or the preset if the build is just slow' },
  E_TOOLCHAIN_OUTPUT: { means: 'the compiler exited 0 but wrote no library, or one that does not load (nothing is cached)', todo: 'check the compiler or wrapper set in the preset or orch.config.ts' },
  E_CACHE_MISS: { means: '--mode run found no usable entry; the message says why', todo: 'orch build, or --mode build-and-run' },
  E_CACHE_CORRUPT: { means: 'a cache entry without the data it needs', todo: 'orch clean, and build again' },
  E_CACHE_LOCKED: { means: 'timed out waiting for another orch process building the same entry', todo: 'wait for it, or remove the lock if that process is gone' },
  E_CACHE_ROOT: { means: 'the cache root (GT_CACHE_ROOT or cacheRoot) is a file or otherwise not a folder', todo: 'point it at a folder, or remove what is in the way' },
  E_CACHE_WRITE: { means: 'the cache cannot be written', todo: 'make the cache root writable, or point GT_CACHE_ROOT at a writable folder' },
  // running a library
  E_LOAD: { means: 'a program library that does not load', todo: 'rebuild it (orch build); it may be missing or built for another machine' },
  E_CLOSED: { means: 'a call of a library that was closed', todo: 'open it again with NativeLibrary.open' },
  E_TARGET: { means: 'a GPU-only call on a CPU build', todo: 'build with a CUDA preset' },
  E_ARG_MISSING: { means: 'a call without an argument the entry takes', todo: 'pass every field and scalar the entry takes' },
  E_ARG_UNKNOWN: { means: 'a call with an argument or callback the entry does not take', todo: 'pass only the arguments listed' },
  E_ARG_TYPE: { means: 'an argument of the wrong kind (a scalar for a field ...)', todo: 'pass a field (npy array) for a field argument' },
  E_ARG_DTYPE: { means: 'an array of another dtype than the entry takes', todo: 'convert the array to the dtype named' },
  E_ARG_SHAPE: { means: 'an array whose shape the entry cannot use', todo: 'pass arrays with the shape named' },
  E_ARG_RANK: { means: 'an array with another number of axes than the field', todo: 'pass one axis per field axis' },
  E_ARG_AXES: { means: 'a field with other axes than the stencil parameter', todo: 'pass a field with matching dimensions' },
  E_ARG_DEVICE: { means: 'a host array passed to a GPU build', todo: 'pass device arrays ({ devicePtr, dtype, shape })' },
  E_ARG_STALE: { means: 'an array reallocated after bind()', todo: 'call bind(args) again after replacing an array' },
  E_DOMAIN_EMPTY: { means: 'fields with no points beyond their origin along an axis, so the compute domain is empty (GT4Py refuses it)', todo: 'pass fields with at least one point per axis beyond the origin' },
  E_DOMAIN_FIT: { means: 'the domain and origin reach outside an array', todo: 'give --origin/--domain that leave room for the stencil\'s offsets' },
  E_RUNTIME: { means: 'the library failed while running (out of memory, a bad domain)', todo: 'the message says what; check the arguments' },
  E_OUT_OF_BOUNDS: { means: "an array accessed outside its shape: a call's domain and origin that do not fit it, or a read at a variable K offset that leaves it", todo: 'enlarge the array, shrink the domain at the call, or keep variable K offsets inside the levels' },
  E_DEBUG_CHECK: { means: 'a debug checker (NaN, negative tracer) failed', todo: 'fix the value; set the debug action to log to continue past failed checks' },
  E_CUDA: { means: 'the CUDA runtime is missing or failed', todo: 'install the CUDA toolkit, or point ORCH_CUDART (or CUDA_HOME) at it' },
  E_NPY_READ: { means: 'an --in file that cannot be read', todo: 'check the path given to --in' },
  E_NPY_FORMAT: { means: 'a file that is not a valid .npy', todo: 'write it with numpy.save' },
  E_NPY_DTYPE: { means: 'a .npy array of a dtype orch does not support', todo: 'use float64, float32, int8, int16, int32, int64 or bool arrays' },
  E_NPY_ORDER: { means: 'a .npy array stored in Fortran order', todo: 'save numpy.ascontiguousarray(a)' },
  E_OUTPUT_WRITE: { means: 'the outputs cannot be written', todo: 'choose a writable --out folder' },
  // orch tune
  E_TUNE_NOTHING: { means: 'orch tune with a preset whose backend offers no schedule options', todo: 'tune with a CPU preset (cpu, cpu-native)' },
  E_TUNE_BUILD: { means: 'orch tune of an entry whose default schedule does not build or run', todo: 'fix what orch build reports for the entry, then tune it' },
  E_TUNE_NO_MATCH: { means: 'orch tune found no schedule, the default included, that matches the interpreter bit for bit', todo: 'check the entry with orch run --mode build-and-run --check and report the difference' },
  E_TUNE_WRITE: { means: 'orch tune cannot write the tuned preset or schedule', todo: 'make the folder writable, or run orch tune where the config is' },
  E_SERVE_PROTOCOL: { means: 'orch serve got bytes that are not a request frame (the Python package and the command line are different versions)', todo: 'install the orch Python package and command line of the same version' },
  // the command line (exit status 2)
  E_USAGE: { means: 'a command line orch cannot read', todo: 'see orch --help' },
  E_USAGE_TARGET: { means: 'a target that is not path/to/module.py[:entry]', todo: 'write path/to/module.py:entry' },
  E_USAGE_PATH: { means: 'no such module or folder', todo: 'pass .py files, folders or globs' },
  E_USAGE_MODE: { means: 'a mode (--mode, ORCH_MODE) orch does not know', todo: 'use one of the modes listed' },
  E_USAGE_SHAPE: { means: '--shape that is not integers separated by commas', todo: 'write --shape 1,2,3' },
  E_USAGE_DOMAIN: { means: '--domain that is not three non-negative integers', todo: 'write --domain NX,NY,NZ' },
  E_USAGE_ORIGIN: { means: '--origin that does not fit the fields', todo: 'give one index per axis, or a JSON object per field' },
  E_USAGE_REPEAT: { means: '--repeat that is not a count (0 or more)', todo: 'write --repeat 10' },
  E_USAGE_SCALARS: { means: '--scalars that is not a JSON object of numbers', todo: 'write --scalars \'{"dt": 30.0}\'' },
  E_USAGE_EXTERNALS: { means: '--externals that is not a JSON object of values', todo: 'write --externals \'{"NAME": 1.0}\'' },
  E_USAGE_DEFINE: { means: '--define that is not name=value', todo: 'write --define n_sub=4' },
  E_USAGE_DEFINE_NAME: { means: '--define of a name the entry has no compile-time argument for', todo: 'use one of the compile-time arguments listed' },
  E_USAGE_IN: { means: '--in that is not name=path.npy', todo: 'write --in q=inputs/q.npy' },
  E_USAGE_LAYOUT: { means: '--layout, --rank-domain or --halo that orch cannot use', todo: 'write --layout 3x3 --rank-domain 48,48,79' },
  E_USAGE_RANK: { means: '--rank that is not a rank of the layout', todo: 'ranks are 0 .. N-1' },
  E_USAGE_BOUNDARY: { means: 'an unknown tile boundary', todo: 'use one of the boundaries listed' },
  E_USAGE_CLOSURE: { means: '--closure that is not one readable closure file for the one class targeted', todo: 'write orch build comp.py:MyComponent --closure closure.json, with a file written by orch.ndsl' },
  E_USAGE_SIZE: { means: '--max-size or cache.maxSize that is not a size', todo: 'write a number with an optional unit: 500M, 2G, 64Ki' },
  E_USAGE_AGE: { means: '--older-than that is not a duration', todo: 'write a number and a unit: 45s, 30m, 12h, 7d or 2w' },
  E_USAGE_TUNE: { means: 'orch tune options it cannot use (a budget or run count that is not positive, a preset name that is taken or not a name, --write-preset with --write-cache)', todo: 'see orch tune --help' },
  E_USAGE_BAD_ENTRY: { means: '--bad-entry that is not KEY=REASON', todo: 'the Python package passes it; report a bug if you did not' },
} as const satisfies Record<string, CodeInfo>;

export type Code = keyof typeof CODES;

export function isCode(text: string): text is Code {
  return Object.hasOwn(CODES, text);
}

/** An error diagnostic of `code` (the one way code names a code; the factories below use it). */
export function diagnostic(code: Code, message: string, opts: Omit<Partial<Diagnostic>, 'code' | 'message'> = {}): Diagnostic {
  return { code, severity: code.startsWith('W_') ? 'warning' : 'error', message, ...opts };
}

// Factories used across areas; the rest live in <area>Errors.ts beside this file.

/** E_INTERNAL: a stage found no product of the stage before it. */
export function internalError(message: string): OrchError {
  return new OrchError(diagnostic('E_INTERNAL', message, { hint: 'this is a bug in orch, or in a plugin that replaced a built-in stage; please report it with the module that triggers it' }));
}

/** E_IR_INVALID: the IR does not verify after a pass or a stage. */
export function invalidIR(after: string, problems: string[], at: { plugin?: string; hook: string; hint: string }): OrchError {
  return new OrchError(diagnostic('E_IR_INVALID', `IR does not verify after ${after}:\n  ${problems.slice(0, 10).join('\n  ')}`, at));
}

/** E_PLUGIN: a plugin threw something that is not a diagnostic. */
export function pluginThrew(plugin: string, hook: string, err: Error): OrchError {
  return new OrchError(
    diagnostic('E_PLUGIN', `plugin '${plugin}' threw in hook '${hook}': ${err.message}`, {
      plugin,
      hook,
      hint: plugin.startsWith('orch:') ? 'this is a bug in orch; please report it with the module that triggers it' : `fix the plugin '${plugin}'`,
      detail: err.stack,
    }),
  );
}

/** E_CACHE_MISS: run mode found no usable entry; `build` says how to build it. */
export function cacheMiss(entry: string, reason: string | undefined, build: string): OrchError {
  return new OrchError(diagnostic('E_CACHE_MISS', `no usable cache entry for ${entry}: ${reason}`, { hint: `build it first (${build})` }));
}

/** E_USAGE_SHAPE, E_USAGE_DOMAIN, E_USAGE_ORIGIN: a list option that is not integers. */
export function notIntegers(option: 'shape' | 'domain' | 'origin', text: string): OrchError {
  const code = ({ shape: 'E_USAGE_SHAPE', domain: 'E_USAGE_DOMAIN', origin: 'E_USAGE_ORIGIN' } as const)[option];
  return new OrchError(diagnostic(code, `--${option} expects integers separated by commas, got '${text}'`, { hint: `write --${option} 1,2,3` }));
}

// Calls in modules: the frontend's stencil, function, callback and program calls.

/** E_CALL_ARGS: a keyword argument the callee has no parameter for; suggests the nearest of `candidates`, else lists `params`. */
export function noSuchParameter(callee: string, kw: { name: string | null; loc: SourceLoc }, params: readonly string[], candidates: readonly string[] = params): OrchError {
  const guess = didYouMean(kw.name ?? '', candidates);
  return new OrchError(diagnostic('E_CALL_ARGS', `${callee}() has no parameter '${kw.name}'`, { loc: kw.loc, hint: guess ? `did you mean '${guess}'?` : `parameters: ${params.join(', ')}` }));
}

/** E_CALL_ARGS: more positional arguments than the callee has parameters. */
export function tooManyArguments(callee: string, takes: number, got: number, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', `${callee}() takes ${takes} arguments, got ${got}`, { loc, hint }));
}

/** E_ARG_MISSING: a call leaves out a parameter that has no default. */
export function missingArgument(callee: string, param: string, loc: SourceLoc, hint = `pass ${param}=...`): OrchError {
  return new OrchError(diagnostic('E_ARG_MISSING', `${callee}() is missing argument '${param}'`, { loc, hint }));
}

/** E_UNKNOWN_NAME: a name a module reads that nothing defines; suggests the nearest of `candidates`, else says `otherwise`. */
export function nameNotDefined(id: string, loc: SourceLoc, candidates: Iterable<string>, otherwise: string): OrchError {
  const guess = didYouMean(id, candidates);
  return new OrchError(diagnostic('E_UNKNOWN_NAME', `name '${id}' is not defined`, { loc, length: id.length, hint: guess ? `did you mean '${guess}'?` : otherwise }));
}

/** E_UNKNOWN_NAME: a module-level name whose value orch could not evaluate (`why` says what it met). */
export function notEvaluated(id: string, why: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_NAME', `'${id}': ${why}`, { loc, length: id.length, hint: 'only literals and simple arithmetic are evaluated at module level' }));
}

/** E_USAGE_EXTERNALS: one external of --externals (or a stencil's externals as the Python package writes them) that orch cannot use. */
export function badExternal(key: string, problem: string, opts: { hint?: string } = {}): OrchError {
  return new OrchError(diagnostic('E_USAGE_EXTERNALS', `external '${key}': ${problem}`, opts));
}

/** E_UNSUPPORTED: a construct orch does not compile where it stands (`where`: gtscript, a program, ...). */
export function notSupported(what: string, where: string, at: { loc: SourceLoc; length?: number }, hint: string): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', `${what} is not supported in ${where}`, { ...at, hint }));
}

// A native library's arguments (core/runtime/NativeLibrary.ts): `argument '<name>' <problem>`.

/** E_ARG_DTYPE: an argument of the wrong kind or dtype, or a scalar out of its dtype's range. */
export function argumentDtype(name: string, problem: string, opts: { hint?: string } = {}): OrchError {
  return new OrchError(diagnostic('E_ARG_DTYPE', `argument '${name}' ${problem}`, opts));
}

/** E_ARG_SHAPE: an array whose shape, strides or data do not fit its parameter. */
export function argumentShape(name: string, problem: string, opts: { hint?: string } = {}): OrchError {
  return new OrchError(diagnostic('E_ARG_SHAPE', `argument '${name}' ${problem}`, opts));
}

/** E_ARG_RANK: an array with another number of dimensions than its parameter's axes and data dimensions. */
export function argumentRank(name: string, problem: string, opts: { hint?: string } = {}): OrchError {
  return new OrchError(diagnostic('E_ARG_RANK', `argument '${name}' ${problem}`, opts));
}

/** E_ARG_DEVICE: host memory where the library takes device memory, or the other way round. */
export function argumentDevice(name: string, problem: string, opts: { hint?: string } = {}): OrchError {
  return new OrchError(diagnostic('E_ARG_DEVICE', `argument '${name}' ${problem}`, opts));
}

/** The table of docs/troubleshooting.md. */
export function codeTableMarkdown(): string {
  const rows = Object.entries(CODES).map(([code, { means, todo }]) => `| \`${code}\` | ${means} | ${todo} |`);
  return ['| code | means | what to do |', '| --- | --- | --- |', ...rows].join('\n');
}
