import { OrchError } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import { diagnostic } from './codes.js';

// The errors of callbacks: one factory per distinct error (after Rollup's src/utils/logs.ts),
// grouped under the code it reports, in the order of CODES in codes.ts.

// E_CALLBACK_BODY: a callback body with statements orch cannot run on the host

export function callbackExpressionStatement(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_BODY', 'an expression statement (a call with effects) in a callback', { loc }));
}

export function callbackChainedAssignment(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_BODY', 'chained assignment', { loc }));
}

export function callbackResultUndeclared(defName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_BODY', `callback '${defName}' returns a value but is not annotated with a return type`, { loc }));
}

export function notInCallback(what: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_BODY', `${what} in a callback`, { loc }));
}

export function statementInCallback(statement: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_BODY', `a ${statement} statement in a callback`, { loc }));
}

export function callbackLoopNotRange(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_BODY', 'a loop other than for name in range(...)', { loc }));
}

export function callbackAssignsNonName(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_BODY', 'assignment to something other than a name', { loc }));
}

export function floatAssignedParameter(dtype: string, name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_BODY', `a float assigned to ${dtype} parameter '${name}'`, { loc }));
}

export function callbackNameNotDefined(id: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_BODY', `name '${id}' is not defined`, { loc }));
}

export function callbackNameNotEvaluated(id: string, why: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_BODY', `'${id}': ${why}`, { loc }));
}

export function indexingInCallback(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_BODY', 'indexing in a callback', { loc }));
}

export function callInCallback(callee: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_BODY', `a call of ${callee} in a callback`, { loc }));
}

// E_CALLBACK_CALL: a callback called inside an expression

export function callbackInExpression(fnName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_CALL', `callback '${fnName}' is called inside an expression`, { loc, hint: `assign its result to a name first (x = ${fnName}(...)), then use the name; callbacks run in statement order` }));
}

// E_CALLBACK_SIGNATURE: a callback whose parameters or result orch cannot pass

export function callbackVariadic(defName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_SIGNATURE', `callback '${defName}' cannot take *args/**kwargs`, { loc, hint: 'declare every parameter by name with a scalar type' }));
}

export function callbackMethod(defName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_SIGNATURE', `callback '${defName}' is a method`, { loc, hint: 'define callbacks as module-level functions' }));
}

export function callbackParameterUntyped(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_SIGNATURE', `callback parameter '${name}' has no type annotation`, { loc, hint: 'annotate it float, int or bool: the library passes typed scalars' }));
}

export function callbackParameterType(name: string, kind: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_SIGNATURE', `callback parameter '${name}' must be a scalar (float, int, bool)${kind === 'fieldType' ? ', not a field' : ''}`, { loc, hint: kind === 'fieldType' ? 'callbacks receive scalars; compute field values in a stencil' : 'annotate it float, int or bool' }));
}

export function callbackResultType(defName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_SIGNATURE', `callback '${defName}' must return a scalar (float, int, bool) or None`, { loc, hint: 'annotate the return type -> float, -> int, -> bool or -> None' }));
}

// E_CALLBACK_HOST: a callback orch cannot run itself

export function callbackNotRunnable(declName: string, why: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_HOST', `orch cannot run callback '${declName}' itself: ${why}`, { loc, hint: 'call the program from Python (the orch package calls the real function), or keep the callback to scalar arithmetic' }));
}

// E_CALLBACK_MISSING: a library whose callback has no host implementation

export function noHostImplementation(name: string, program: string): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_MISSING', `no host implementation given for callback '${name}' of program '${program}'`));
}

// E_CALLBACK_RAISED: a callback raised while the program ran

export function callbackRangeStepZero(declName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_RAISED', `callback '${declName}': range() step must not be zero`, { loc }));
}

export function callbackRaised(declName: string, message: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_RAISED', `callback '${declName}' raised: ${message}`, { loc, hint: 'the callback rejected its arguments' }));
}

// E_CALLBACK_RESULT: a callback returned something other than what it declares

export function callbackReturnedNone(declName: string, result: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_RESULT', `callback '${declName}' returned None, but is declared to return ${result}`, { loc, hint: 'return a value on every path' }));
}

export function callbackReturnedNothing(name: string, result: string): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_RESULT', `callback '${name}' returned nothing, but is declared to return ${result}`));
}

export function callbackResultUnused(fnName: string, returns: boolean, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CALLBACK_RESULT', `callback '${fnName}' returns nothing, so its result cannot be assigned`, { loc, hint: returns ? 'call it as a statement' : `annotate its return type (def ${fnName}(...) -> float:)` }));
}
