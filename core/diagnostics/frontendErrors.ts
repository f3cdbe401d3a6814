import path from 'node:path';
import { OrchError } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import { diagnostic } from './codes.js';

// The errors of the Python frontend (modules, names, values, entries): one factory per distinct error (after Rollup's src/utils/logs.ts),
// grouped under the code it reports, in the order of CODES in codes.ts.

// E_SYNTAX: the module is not valid Python

export function bracketNeverClosed(char: string, closer: string | undefined, line: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_SYNTAX', `'${char}' was never closed`, { loc, hint: `add the missing '${closer}' where the expression ends: Python reads on to line ${line} looking for it` }));
}

export function pythonSyntaxError(message: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_SYNTAX', message, { loc, hint: 'fix the Python syntax error; orch parses modules as Python 3' }));
}

// E_MODULE_NOT_FOUND: a module path that cannot be read

export function cannotReadModule(file: string): OrchError {
  return new OrchError(diagnostic('E_MODULE_NOT_FOUND', `cannot read module ${file}`, { hint: 'check the path; modules are .py files' }));
}

// E_IMPORT_CYCLE: modules import each other in a cycle

export function importCycle(abs: string): OrchError {
  return new OrchError(diagnostic('E_IMPORT_CYCLE', `import cycle through ${abs}`, { hint: 'orch evaluates module top levels once; break the cycle' }));
}

// E_MODULE_RAISE: module code raises at compile time

export function moduleCodeRaises(basename: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_MODULE_RAISE', `module code raises at compile time (in ${basename})`, { loc, length, hint: 'the branch that raises was taken with the constants and environment variables of this build: check them' }));
}

// E_UNKNOWN_NAME: a name or attribute that is not defined (with a did-you-mean)

export function notAnExpressionValue(message: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_NAME', message, { loc, hint: 'only numbers, booleans, fields and scalars can be used here' }));
}

export function noKnownAttribute(described: string, attr: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_NAME', `${described} has no attribute '${attr}' that orch knows`, { loc, hint: `check that '${attr}' is defined at the top level of that module` }));
}

export function moduleNameNotEvaluated(message: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_NAME', message, { loc, hint: 'only literals and simple arithmetic are evaluated at module level' }));
}

export function objectNoAttribute(clsName: string, attr: string, guess: string | undefined, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_NAME', `'${clsName}' object has no attribute '${attr}'`, { loc, hint: guess ? `did you mean '${guess}'?` : `store it on self in ${clsName}.__init__` }));
}

export function notAnAssignableValue(message: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_NAME', message, { loc, hint: 'only numbers, booleans and fields can be assigned' }));
}

export function notGtscriptName(name: string, guess: string | undefined, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_NAME', `'${name}' is not a gtscript name`, { loc, length, hint: guess ? `did you mean '${guess}'?` : 'import gtscript builtins such as computation, interval, PARALLEL, __INLINED' }));
}

// E_UNKNOWN_ATTRIBUTE: an attribute a compile-time value (a namespace, class or enum external) does not have

export function externalMissingAttribute(dotted: string, described: string, attr: string, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_ATTRIBUTE', `Missing or invalid value for external symbol ${dotted}: ${described} has no attribute '${attr}'`, { loc, hint }));
}

// E_UNKNOWN_CALL: a call of something orch cannot call or inline

export function notCallable(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_CALL', 'only functions can be called', { loc, hint: 'call math builtins or @gtscript.function helpers' }));
}

export function objectNotCallable(what: string, type: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_CALL', `'${what}' is a ${type} object, which orch cannot call`, { loc, hint: 'orchestrate it (orchestrate(obj=self, ...) in its __init__) or mark the method @dace_inhibitor' }));
}

export function objectWithoutCall(clsName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_CALL', `'${clsName}' objects are not callable (no __call__)`, { loc, hint: `define ${clsName}.__call__` }));
}

export function notCallableInProgram(what: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_CALL', `cannot call '${what}' in a program`, { loc, length, hint: 'programs call stencils, other programs and @callback functions; mark host code with @callback' }));
}

export function plainPythonFunction(fnName: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_CALL', `'${fnName}' is a plain Python function: orch cannot compile it into the program`, { loc, length, hint: `mark it @callback to run it on the host (scalar arguments), or @program / @stencil to compile it` }));
}

export function gtscriptFunctionInProgram(fnName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_CALL', `'${fnName}' is a @gtscript.function; call it from a stencil`, { loc, hint: 'programs call stencils, not helpers' }));
}

export function hostCodeInProgram(id: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_CALL', `'${id}' is Python host code, which orch cannot compile into a program`, { loc, length, hint: 'move it into a @callback function (called with scalars, run by the host), or out of the program' }));
}

export function notCallableInExpression(callee: string, what: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_CALL', `cannot call ${callee} ('${what}') in an expression`, { loc, length, hint: 'programs may use math functions in expressions; stencils and programs are called as statements' }));
}

export function notCallableFromStencil(fnName: string, kind: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_CALL', `'${fnName}' is a ${kind} and cannot be called from a stencil`, { loc, hint: 'call it from a @program, or make it a @gtscript.function' }));
}

export function notCallableInStencil(callee: string, what: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_CALL', `cannot call ${callee} ('${what}') in a stencil`, { loc, length, hint: 'stencils may call math builtins (sqrt, exp, log, min, max, abs, ...) and @gtscript.function helpers' }));
}

export function callNotGtscriptFunction(fnName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNKNOWN_CALL', `'${fnName}' is not a @gtscript.function`, { loc, hint: 'decorate helpers with @gtscript.function' }));
}

// E_UNSUPPORTED: a Python construct orch does not compile (lists, dicts, I/O, early returns ...)

export function attributeNotSupported(attr: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', `attribute '${attr}' is not supported here`, { loc, hint: 'use module constants (module.NAME) or field arguments' }));
}

export function cannotIndex(described: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', `cannot index ${described}`, { loc, hint: 'only fields are indexed with offsets' }));
}

export function bitwiseNotSupported(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', "bitwise '~' is not supported", { loc, hint: "use 'not' for booleans" }));
}

export function sliceOutsideRegion(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', 'slices are only allowed in region[...]', { loc, hint: 'index fields with constant offsets such as q[1, 0, 0]' }));
}

export function oneIndexOnly(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', 'only one index is supported here', { loc, hint: 'index with one constant key' }));
}

export function programStatementNotSupported(vowel: boolean, statement: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', `${vowel ? 'an' : 'a'} ${statement} statement is not supported in a program`, { loc, hint: 'programs may call stencils, programs and callbacks, and use scalar arithmetic, for/while/if; see docs/programs.md' }));
}

export function loopVariableNotName(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', 'the loop variable must be a single name', { loc, hint: 'write for i in range(n):' }));
}

export function programLoopNotRange(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', 'programs can only loop over range(...)', { loc, hint: 'write for i in range(start, stop, step):' }));
}

export function programChainedAssignment(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', 'chained assignment is not supported', { loc, hint: 'assign each target separately' }));
}

export function attributeNotSupportedHere(attr: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', `attribute '${attr}' is not supported here`, { loc, hint: attr === 'shape' ? 'unpack it (nx, ny, nz = q.shape) or index it (q.shape[0])' : 'use module constants or field.shape' }));
}

export function programIndexesField(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', 'programs cannot index fields', { loc, hint: 'read and write fields inside stencils' }));
}

export function onlyFieldsIndexedWithData(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', 'only fields can be indexed', { loc, hint: 'index a field by name: q[1, 0, 0], then its data dimensions: v[0, 0, 0][1]' }));
}

export function onlyFieldsIndexed(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', 'only fields can be indexed', { loc, hint: 'index a field by name: q[1, 0, 0]' }));
}

export function notIndexable(id: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', `'${id}' is not a field and cannot be indexed`, { loc, hint: 'only fields and temporaries take offsets' }));
}

export function forLoopInStencil(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', 'for loops are not supported inside stencils', { loc, hint: 'use a computation(FORWARD/BACKWARD) over K, or a while loop' }));
}

export function stencilStatementNotSupported(statement: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED', `this ${statement} statement is not supported inside a stencil`, { loc, hint: 'see docs/language.md for the statements stencils may contain' }));
}

// E_UNSUPPORTED_BUILTIN: a function that is not a gtscript builtin, used in a stencil

export function notGtscriptBuiltin(spelled: string, instead: string, builtins: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_UNSUPPORTED_BUILTIN', `'${spelled}' is not a gtscript builtin`, { loc, length, hint: instead ? `${instead}; the math builtins are: ${builtins}` : `the math builtins are: ${builtins}` }));
}

// E_NOT_CONSTANT: a value that must be known at compile time is not

export function notKnownAtCompileTime(what: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_CONSTANT', `${what} must be known at compile time`, { loc, hint: 'use literals, module constants or externals here' }));
}

export function notConstant(what: string, why: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_CONSTANT', `${what}: ${why}`, { loc, hint: 'use literals, module constants or externals here' }));
}

export function conditionNotConstant(described: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_CONSTANT', `condition is ${described}`, { loc, hint: 'conditions must be booleans or numbers' }));
}

export function intervalBoundNotConstant(why: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_CONSTANT', `an interval bound: ${why}`, { loc, hint: 'use literals, module constants, externals, scalars or IJ fields here' }));
}

export function compileAssertNotBoolean(described: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_CONSTANT', `the compile_assert condition is ${described}, not a boolean`, { loc, hint: 'assert on externals and constants: compile_assert(N >= 1)' }));
}

export function inlinedNeedsConstant(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_CONSTANT', '__INLINED(...) needs a compile-time condition', { loc, hint: 'use only externals and constants inside __INLINED' }));
}

export function initialValueNotConstant(targetId: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_CONSTANT', `the initial value of '${targetId}' must be a constant`, { loc, hint: 'GT4Py initializes function-level temporaries with a literal (= 0): assign computed values inside a computation' }));
}

// E_CONST_CONVERSION: int() or float() of a compile-time value that is not a number

export function notANumber(isInt: boolean, written: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CONST_CONVERSION', `${isInt ? 'int' : 'float'}(${written}) is not a number`, { loc, hint: 'check the value of the environment variable or constant it reads' }));
}

// E_CONST_DIV_ZERO: a division by zero in a compile-time expression

export function constDivisionByZero(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CONST_DIV_ZERO', 'division by zero in a compile-time expression', { loc, hint: 'check the constants involved' }));
}

// E_CONST_LOOKUP: a compile-time lookup (enum member, dict key, index) that does not exist

export function enumNoMember(baseName: string, index: string, keys: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CONST_LOOKUP', `enum '${baseName}' has no member ${index}`, { loc, hint: `members: ${keys}` }));
}

// E_ENV_UNSET: os.environ[...] of a variable that is not set

export function envUnset(index: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ENV_UNSET', `environment variable '${index}' is not set`, { loc, hint: `set it, or read it with os.environ.get("${index}", default)` }));
}

// E_RECURSION: compile-time evaluation recursed too deeply

export function compileTimeRecursion(fnName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_RECURSION', `compile-time call of '${fnName}' recurses too deeply`, { loc, hint: 'module code evaluated at compile time cannot recurse' }));
}

export function recursiveConstruction(clsName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_RECURSION', `recursive construction of '${clsName}'`, { loc, hint: 'program classes cannot contain themselves' }));
}

export function recursiveProgramCall(fnName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_RECURSION', `recursive program call of '${fnName}'`, { loc, hint: 'programs cannot call themselves' }));
}

export function recursiveHelperCall(fnName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_RECURSION', `recursive call of '${fnName}'`, { loc, hint: 'helpers cannot call themselves' }));
}

// E_RANGE: range() with a zero step

export function rangeStepZero(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_RANGE', 'range() step must not be zero', { loc, hint: 'use a positive or negative step' }));
}

// E_NO_ENTRIES: orch build m.py where m.py holds no stencil or program (it only imports one, say)

export function noEntriesToReport(modules: string, modulesCount: number): OrchError {
  return new OrchError(diagnostic('E_NO_ENTRIES', `${modules} hold${modulesCount === 1 ? 's' : ''} no stencil or program to report on`, { hint: 'name a module with a stencil or a @program' }));
}

// E_ENTRY_NOT_FOUND: the entry named (orch run file.py:name) is no stencil or program of the module

export function entryNotUsable(entry: string, file: string, why: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ENTRY_NOT_FOUND', `'${entry}' in ${file} cannot be used: ${why}`, { loc, hint: 'add the folder holding that package to pythonPath in orch.config.ts or to PYTHONPATH' }));
}

export function entryNotFound(file: string, entry: string, hint: string): OrchError {
  return new OrchError(diagnostic('E_ENTRY_NOT_FOUND', `${file} has no stencil or program named '${entry}'`, { hint }));
}

// E_ENTRY_KIND: the entry named is not something orch can build (a class without __call__ ...)

export function classNotCallable(entry: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ENTRY_KIND', `class '${entry}' has no __call__, so it is not a program`, { loc, hint: 'a program class stores stencils on self in __init__ and runs them in __call__' }));
}

export function notAnEntry(fnName: string, kind: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ENTRY_KIND', `'${fnName}' is a ${kind === 'gtfunction' ? '@gtscript.function helper' : '@callback'}, not a stencil or program`, { loc, hint: 'run a stencil or a @program' }));
}

export function notStencilNorProgram(fnName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ENTRY_KIND', `'${fnName}' is neither a stencil (no \`with computation\`) nor a @program`, { loc, hint: 'decorate programs with @program' }));
}

// E_COMPILE_ASSERT: a compile_assert failed for the values this build uses

export function compileAssertFailed(given: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_COMPILE_ASSERT', `compile_assert failed${given ? ` with ${given}` : ''}`, { loc, hint: 'the externals or constants this stencil was built with violate its assertion: build it with values that satisfy it' }));
}

// E_NO_ENTRIES: a module named on the command line that holds no stencil or program

/** `found` says what the module holds instead; `importing`, the first name it imports and the module that name comes from. */
export function noEntriesToBuild(shown: string, found: string[], file: string, importing: { imported: string; module: string } | undefined): OrchError {
  return new OrchError(
    diagnostic('E_NO_ENTRIES', `${shown} has no stencil or program to build${found.length ? `: it has ${found.join(' and ')}` : ''}`, {
      loc: { file, line: 1, col: 1 },
      hint: importing
        ? `build the module that defines ${importing.imported} (${importing.module.replace(/\./g, '/')}.py), or decorate a function here with @stencil or @program`
        : `decorate a function with @stencil or @program (or gtscript.stencil), or name another module; ${path.basename(file)} is built only as a module an entry imports`,
    }),
  );
}
