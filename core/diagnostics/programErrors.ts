import { OrchError } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import { diagnostic } from './codes.js';

// The errors of programs: one factory per distinct error (after Rollup's src/utils/logs.ts),
// grouped under the code it reports, in the order of CODES in codes.ts.

// E_PROGRAM_STMT: a program statement without effect, or of a kind programs cannot hold

export function programExpressionStatement(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_PROGRAM_STMT', 'an expression statement has no effect', { loc, hint: 'call a stencil, a program or a callback, or assign the value' }));
}

export function programReturns(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_PROGRAM_STMT', 'programs return nothing', { loc, hint: 'write results into field arguments' }));
}

// E_ASSIGN_TARGET: a program assignment to something other than a name

export function programAssignsField(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ASSIGN_TARGET', 'programs can only assign to names', { loc, hint: 'fields are written by stencils; assign scalars to names' }));
}

export function fieldReassigned(targetId: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ASSIGN_TARGET', `'${targetId}' is a field and cannot be reassigned`, { loc, hint: 'use a new name for the scalar' }));
}

export function programAssignsOnlyNames(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ASSIGN_TARGET', 'programs can only assign to names', { loc, hint: 'assign scalars to names' }));
}

export function temporaryNotAssignedToName(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ASSIGN_TARGET', 'temporary(...) must be assigned to a name', { loc, hint: 'write tmp = temporary(q)' }));
}

export function globalTableWritten(table: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ASSIGN_TARGET', `'${table}[...]' is written`, { loc, hint: "GT4Py rejects this too (\"writing to an GlobalTable ('A' global indexation) is forbidden\"): write a field's elements as v[0, 0, 0][1] = ..." }));
}

export function notAField(id: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ASSIGN_TARGET', `'${id}' is not a field`, { loc, hint: 'assign to fields or to new temporaries by name' }));
}

export function assignTargetNotName(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ASSIGN_TARGET', 'assignment target must be a name', { loc, hint: 'assign to a field, a temporary or a new local name' }));
}

// E_PARAM: a program or callback declared with *args or **kwargs

export function orchestratedMethodVariadic(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_PARAM', 'orchestrated methods cannot take *args/**kwargs', { loc, hint: 'declare every argument by name' }));
}

export function programVariadic(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_PARAM', 'programs cannot take *args/**kwargs', { loc, hint: 'declare every argument by name' }));
}

export function stencilVariadic(kind: string, name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_PARAM', `*${kind === 'kwargs' ? '*' : ''}${name} is not allowed in a stencil signature`, { loc, hint: 'declare every field and scalar as a named parameter' }));
}

// E_PARAM_TYPE: a program argument without a usable type annotation

export function dtypeNotType(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_PARAM_TYPE', 'dtype must be a type such as Float or np.float64', { loc, hint: 'write dtype=Float' }));
}

export function programParamUntyped(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_PARAM_TYPE', `program argument '${name}' has no type annotation`, { loc, hint: 'annotate fields (FloatField), scalars (Float, int, bool) and compile-time values (compiletime(int))' }));
}

export function programParamType(name: string, why: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_PARAM_TYPE', `the annotation of '${name}' is not a field, scalar or compiletime(...) type${why}`, { loc, hint: 'use FloatField, Float, int, bool or compiletime(int)' }));
}

export function stencilParamUntyped(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_PARAM_TYPE', `parameter '${name}' has no type annotation`, { loc, hint: 'annotate fields with gtscript.Field[...] (or FloatField) and scalars with float, int or bool' }));
}

export function stencilParamType(name: string, why: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_PARAM_TYPE', `the annotation of '${name}' is not a field or scalar type${why}`, { loc, hint: 'use gtscript.Field[np.float64], Field[IJ, float], NDSL aliases (FloatField, FloatFieldIJ, ...) or float/int/bool' }));
}

// E_CALL_ARGS: a call with arguments that do not match what it takes

export function conversionTakesOne(dtype: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', 'a type conversion takes exactly one argument', { loc, hint: `write ${dtype}(x)` }));
}

export function takesNoKeywords(calleeName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', `${calleeName}() takes no keyword arguments`, { loc, hint: 'pass arguments by position' }));
}

export function wrongArgumentCount(calleeName: string, takes: string | number, lo: number, hi: number, argsCount: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', `${calleeName}() takes ${takes} argument${lo === 1 && hi === 1 ? '' : 's'}, got ${argsCount}`, { loc, hint: `check the call of ${calleeName}` }));
}

export function classTakesNoArguments(clsName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', `${clsName}() takes no arguments (it has no __init__)`, { loc, hint: `write ${clsName}()` }));
}

export function rangeArgumentCount(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', 'range() takes 1 to 3 arguments', { loc, hint: 'write range(stop), range(start, stop) or range(start, stop, step)' }));
}

export function temporaryUnknownParameter(name: string | null, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', `temporary() has no parameter '${name}'`, { loc, hint }));
}

export function temporaryExtentCount(shapeCount: number, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', `a temporary has 1 to 3 extents, got ${shapeCount}`, { loc, hint }));
}

export function temporaryArguments(loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', 'temporary() takes a field or shape=(...)', { loc, hint }));
}

export function frozenStencilArgument(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', `this stencil's ${name} is fixed where it was built (a FrozenStencil)`, { loc, hint: `drop ${name}=, or build the stencil with another ${name}` }));
}

export function computationArgs(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', 'computation() takes one iteration order', { loc, hint: 'write computation(PARALLEL), computation(FORWARD) or computation(BACKWARD)' }));
}

export function compileAssertArgs(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', 'compile_assert takes one condition', { loc, length: 'compile_assert'.length, hint: 'write compile_assert(N >= 1)' }));
}

export function callMissingArgument(fnName: string, name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALL_ARGS', `${fnName}() is missing argument '${name}'`, { loc, hint: `pass ${name}=...` }));
}

// E_CALL_IN_CONDITION: a function call in an if or while condition that cannot be inlined there

export function callInCondition(condition: string, name: string, why: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_CALL_IN_CONDITION', `function call in ${condition === 'if' ? 'an if' : 'a while'} condition: '${name}' cannot be inlined there (${why})`, { loc, length, hint: `assign the result to a temporary first (c = ${name}(...)) and test the temporary` }));
}

// E_NOT_A_VALUE: a field used as a value in a program

export function notAValueOfKind(described: string, what: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_A_VALUE', `${described} is not a ${what}`, { loc, hint: 'only numbers, booleans, fields and scalar arguments can be used in expressions' }));
}

export function fieldNotValue(what: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_A_VALUE', `field '${what}' cannot be used as a value in a program`, { loc, hint: 'fields are passed to stencils; read them inside a stencil' }));
}

export function objectNotValue(what: string, clsName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_A_VALUE', `'${what}' is a ${clsName} object, not a value`, { loc, hint: `call it (${what}(...)) or use its attributes` }));
}

export function methodNotValue(fnName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_A_VALUE', `method '${fnName}' cannot be used as a value`, { loc, hint: 'call it as a statement' }));
}

export function objectOfTypeNotValue(what: string, type: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_A_VALUE', `'${what}' is a ${type} object, not a value`, { loc, hint: 'use its members (numbers, booleans, arrays)' }));
}

export function callableNotValue(what: string, kind: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_A_VALUE', `'${what}' is a ${kind}, not a value`, { loc, hint: 'call it as a statement' }));
}

// E_ALIAS_IN_FLOW: a name bound to a field only on some runtime paths

export function fieldAliasInFlow(targetId: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ALIAS_IN_FLOW', `'${targetId}' would name a field only on some runtime paths`, { loc, hint: 'bind field names outside runtime if/while/for, or call the stencil on each branch with the field it needs' }));
}

// E_ALIAS_ORIGIN: one field passed twice to a stencil with different origins

export function fieldPassedTwice(arr: string, defName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ALIAS_ORIGIN', `field '${arr}' is passed twice to ${defName}() with different origins`, { loc, hint: 'pass the same field once, or use the same origin for both parameters' }));
}

// E_DOMAIN: a domain= that is not three sizes

export function domainNotThree(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DOMAIN', 'domain must have 3 entries (nx, ny, nz)', { loc, hint: 'write domain=(nx, ny, nz)' }));
}

export function domainNotTuple(what: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DOMAIN', `${what} must be a tuple`, { loc, hint: `write ${what}=(i, j, k)` }));
}

export function domainNotIntegers(what: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DOMAIN', `${what} entries must be integers`, { loc, hint: 'use integer expressions' }));
}

// E_TEMPORARY_SHAPE: a temporary whose shape is not known when the program starts

export function temporaryLikeDataDims(likeName: string, dims: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_TEMPORARY_SHAPE', `temporary(${likeName}): '${likeName}' has data dimensions (${dims}), which program temporaries do not have yet`, { loc, hint: 'allocate the array in the caller and pass it to the program as an argument of the same Field[...] type' }));
}

export function temporaryShapeUnknown(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_TEMPORARY_SHAPE', 'the shape of a temporary must be known when the program starts', { loc, hint: 'use compile-time values, scalar arguments or field shapes (q.shape[0]), or temporary(q) for a field like q' }));
}

// E_CLASS_FORM: a program class without __call__

export function programClassWithoutCall(clsName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLASS_FORM', `program class '${clsName}' has no __call__`, { loc, hint: 'define __call__(self, fields..., scalars...) with the program body' }));
}

// E_CLASS_INIT: a program class __init__ orch cannot evaluate

export function programClassInitVariadic(clsName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLASS_INIT', `__init__ of program class '${clsName}' cannot take *args/**kwargs`, { loc, hint: 'declare every constructor argument by name' }));
}

export function programClassMember(what: string, clsName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLASS_INIT', `${what} in the __init__ of program class '${clsName}'`, { loc, hint: '__init__ may only store stencils, temporaries, constants and program-class instances on self (and compute compile-time values)' }));
}

export function initDependsOnRuntime(nameHint: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLASS_INIT', `'${nameHint}' depends on runtime values; __init__ runs at compile time`, { loc, hint: 'store compile-time values (constructor arguments, constants) in __init__; compute runtime values in __call__' }));
}

// E_CLASS_INSTANCE: an object created inside a program

export function objectCreatedInProgram(clsName: string, isProgram: boolean, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLASS_INSTANCE', `'${clsName}' objects cannot be created in a program`, { loc, hint: isProgram ? `create it in the __init__ of a program class (self.x = ${clsName}(...)) and call self.x(...)` : 'programs work on fields and scalars; move object code into a @callback' }));
}

// E_CLOSURE_TYPE: a closure value of a Python type orch cannot compile

export function closureValueType(chainText: string, type: string, why: string, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_CLOSURE_TYPE', `'${chainText}' (Python type ${type}): ${why}`, { loc, hint }));
}

// E_INDEX: an index out of range of a compile-time tuple

export function tupleIndexOutOfRange(itemsCount: number, last: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INDEX', `index out of range for a tuple of ${itemsCount}`, { loc, hint: `use 0..${last}` }));
}

export function indexNotConstant(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INDEX', 'configuration is indexed by a constant string or integer', { loc, hint: 'index dicts with string literals and lists with integer literals' }));
}

// E_RUNTIME_LIST: a list or tuple built at run time in a program

export function runtimeContainer(statement: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_RUNTIME_LIST', `a ${statement} is built at run time here; orch compiles no containers`, { loc, hint: 'call the stencil once per field (unroll the loop), or loop over range(...)' }));
}

// E_CLOSURE: an orchestrated component's closure that does not match its module (a class or attribute it names is missing)

export function closureNoClass(file: string, name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLOSURE', `${file} has no class '${name}'`, { loc, hint: 'the component class must be defined at module level' }));
}

export function closureNoCallbackMethod(cls: string, file: string, name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLOSURE', `class '${cls}' of ${file} has no method '${name}'`, { loc, hint: 'callbacks must be methods defined in the class body' }));
}

export function closureNoFunction(file: string, name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLOSURE', `${file} has no module-level function '${name}'`, { loc, hint: 'stencil definitions must be module-level functions' }));
}

export function closureMethodWithoutOwner(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLOSURE', `method '${name}' has no owning component`, { loc, hint: 'the closure file is written by the orch Python package' }));
}

export function closureClassNoMethod(clsName: string, name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLOSURE', `class '${clsName}' has no method '${name}'`, { loc, hint: 'orchestrated methods must be defined in the class body' }));
}

export function closureParameterNotIdentifier(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLOSURE', `closure parameter '${name}' is not a fresh identifier`, { loc, hint: 'the closure file is written by the orch Python package' }));
}

export function closureMemberUnresolved(type: string, key: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLOSURE', `'${type}' object member ${key} was not resolved`, { loc, hint: 'this member is read in a way orch cannot follow: read it through a self.<attr> chain in the orchestrated method' }));
}

export function closureHaloFieldUnknown(field: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLOSURE', `halo exchange field '${field}' is not a closure array`, { loc, hint: 'the closure file is written by the orch Python package' }));
}

export function closureNoMethodToOrchestrate(clsName: string, method: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLOSURE', `class '${clsName}' has no method '${method}' to orchestrate`, { loc, hint: 'pass method_to_orchestrate= the name of a method defined in the class body' }));
}

export function closureArgumentMissing(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CLOSURE', `argument '${name}' is not described by the closure`, { loc, hint: 'the closure file is written by the orch Python package' }));
}
