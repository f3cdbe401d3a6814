import { OrchError } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import { diagnostic, type Code } from './codes.js';

// The errors of running a library (arguments, .npy files, the CUDA runtime): one factory per distinct error (after Rollup's src/utils/logs.ts),
// grouped under the code it reports, in the order of CODES in codes.ts.

// E_LOAD: a program library that does not load

export function cannotLoadProgram(soPath: string, message: string): OrchError {
  return new OrchError(diagnostic('E_LOAD', `cannot load program library ${soPath}: ${message}`, { hint: 'rebuild the program (orch build); the cached library may be missing or built for another machine' }));
}

export function notAnOrchLibrary(soPath: string, symbol: string, message: string): OrchError {
  return new OrchError(diagnostic('E_LOAD', `${soPath} is not an orch program library for '${symbol}': ${message}`));
}

export function noSetCallbackSymbol(path: string, symbol: string): OrchError {
  return new OrchError(diagnostic('E_LOAD', `${path} does not export ${symbol}_set_callback`, { hint: 'rebuild the program with this version of orch' }));
}

// E_CLOSED: a call of a library that was closed

export function libraryClosed(path: string): OrchError {
  return new OrchError(diagnostic('E_CLOSED', `program library ${path} was closed`, { hint: 'open it again with NativeLibrary.open' }));
}

// E_TARGET: a GPU-only call on a CPU build

export function programHasNoStream(program: string): OrchError {
  return new OrchError(diagnostic('E_TARGET', `program '${program}' is a CPU build and has no stream`));
}

// E_ARG_MISSING: a call without an argument the entry takes

export function missingEntryArgument(prmName: string, name: string): OrchError {
  return new OrchError(diagnostic('E_ARG_MISSING', `missing argument '${prmName}' for ${name}`, { hint: `pass ${prmName}` }));
}

export function inputFieldMissing(name: string, programName: string): OrchError {
  return new OrchError(diagnostic('E_ARG_MISSING', `missing field argument '${name}' of ${programName}`, { hint: `pass --in ${name}=path.npy` }));
}

export function inputScalarMissing(name: string, programName: string): OrchError {
  return new OrchError(diagnostic('E_ARG_MISSING', `missing scalar argument '${name}' of ${programName}`, { hint: `pass --scalars '{"${name}": ...}'` }));
}

export function stencilScalarMissing(name: string, defName: string): OrchError {
  return new OrchError(diagnostic('E_ARG_MISSING', `missing scalar argument '${name}' of stencil ${defName}`, { hint: `pass --scalars '{"${name}": ...}'` }));
}

export function programArgumentMissing(name: string, kind: string, dtype: string, program: string): OrchError {
  return new OrchError(diagnostic('E_ARG_MISSING', `missing argument '${name}' (${kind} ${dtype}) of program '${program}'`));
}

export function programNotBound(program: string): OrchError {
  return new OrchError(diagnostic('E_ARG_MISSING', `program '${program}' has no bound arguments`, { hint: 'call bind(args) first' }));
}

// E_ARG_UNKNOWN: a call with an argument or callback the entry does not take

export function noFieldArgument(programName: string, name: string, hint: string): OrchError {
  return new OrchError(diagnostic('E_ARG_UNKNOWN', `${programName} has no field argument '${name}'`, { hint }));
}

export function noScalarArgument(programName: string, name: string, hint: string): OrchError {
  return new OrchError(diagnostic('E_ARG_UNKNOWN', `${programName} has no scalar argument '${name}'`, { hint }));
}

export function stencilNoScalarArgument(defName: string, name: string, hint: string): OrchError {
  return new OrchError(diagnostic('E_ARG_UNKNOWN', `stencil ${defName} has no scalar argument '${name}'`, { hint }));
}

export function programNoCallback(program: string, name: string, fields: string): OrchError {
  return new OrchError(diagnostic('E_ARG_UNKNOWN', `program '${program}' has no callback '${name}'`, { hint: `its callbacks are: ${fields}` }));
}

export function programNoParameter(program: string, name: string, hint: string): OrchError {
  return new OrchError(diagnostic('E_ARG_UNKNOWN', `program '${program}' has no parameter '${name}'`, { hint }));
}

// E_ARG_TYPE: an argument of the wrong kind (a scalar for a field ...)

export function argumentArray(prmName: string): OrchError {
  return new OrchError(diagnostic('E_ARG_TYPE', `argument '${prmName}' must be an array`, { hint: 'pass a field (npy array)' }));
}

export function argumentScalar(prmName: string): OrchError {
  return new OrchError(diagnostic('E_ARG_TYPE', `argument '${prmName}' must be a scalar`, { hint: 'pass a number or boolean' }));
}

// E_ARG_DTYPE: an array of another dtype than the entry takes

export function argumentFieldDtype(declName: string, dtype: string, dtype2: string): OrchError {
  return new OrchError(diagnostic('E_ARG_DTYPE', `field '${declName}' has dtype ${dtype}, ${dtype2} expected`, { hint: `convert it with .astype(np.${dtype2})` }));
}

export function inputFieldDtype(name: string, dtype: string, programName: string, dtype2: string): OrchError {
  return new OrchError(diagnostic('E_ARG_DTYPE', `field '${name}' has dtype ${dtype}, but ${programName} declares ${dtype2}`, { hint: `save it as ${dtype2}` }));
}

export function fieldDtypeUnsupported(name: string, dtype: string): OrchError {
  return new OrchError(diagnostic('E_ARG_DTYPE', `field '${name}' has dtype ${dtype}, which orch does not support`, { hint: 'pass a float64, float32, int8, int16, int32, int64 or bool array' }));
}

// E_ARG_SHAPE: an array whose shape the entry cannot use

export function argumentFieldRank(declName: string, shapeCount: number, rank: number, axes: string, dimsCount: number): OrchError {
  return new OrchError(diagnostic('E_ARG_SHAPE', `field '${declName}' has ${shapeCount} dimensions, ${rank} expected (${axes})`, { hint: dimsCount ? 'pass an array with one dimension per field axis, then its data dimensions' : 'pass an array with one dimension per field axis' }));
}

export function argumentFieldDataDims(declName: string, trailing: string, dims: string): OrchError {
  return new OrchError(diagnostic('E_ARG_SHAPE', `field '${declName}' has data dimensions (${trailing}), (${dims}) expected`, { hint: 'pass an array whose last dimensions are the data dimensions of its Field[...] type' }));
}

export function inputFieldRank(name: string, shapeCount: number, fmt: string, kind: string, rank: number, split: string): OrchError {
  return new OrchError(diagnostic('E_ARG_SHAPE', `field '${name}' has ${shapeCount} dimensions (shape ${fmt}), but it is ${kind}`, { hint: `pass an array with ${rank} dimension(s)${split}` }));
}

export function inputFieldShape(name: string, fmt: string, kind: string, dimsCount: number, fmt2: string): OrchError {
  return new OrchError(diagnostic('E_ARG_SHAPE', `field '${name}' has shape ${fmt}, but it is ${kind}`, { hint: `its last ${dimsCount} dimension(s) must be ${fmt2}` }));
}

// E_ARG_AXES: a field with other axes than the stencil parameter

export function argumentAxesMismatch(arrName: string, axes: string, defName: string, expected: string, param: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ARG_AXES', `'${arrName}' is a ${axes} field but ${defName}() expects ${expected} for '${param}'`, { loc, hint: 'pass a field with matching dimensions' }));
}

export function argumentDataDimsMismatch(arrName: string, dims: string, defName: string, expected: string, param: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ARG_AXES', `'${arrName}' has ${dims} but ${defName}() expects ${expected} for '${param}'`, { loc, hint: 'pass a field whose Field[...] type has the same data dimensions' }));
}

// E_ARG_STALE: an array reallocated after bind()

export function argumentReallocated(paramsName: string): OrchError {
  return new OrchError(diagnostic('E_ARG_STALE', `argument '${paramsName}' was reallocated (or detached) after bind`, { hint: 'call bind(args) again after replacing an array' }));
}

// E_DOMAIN_EMPTY: fields with no points beyond their origin along an axis, so the compute domain is empty (GT4Py refuses it)

export function domainEmptyAtOrigin(limiting: string, fmt: string, fmt2: string, past: string, axis: string): OrchError {
  return new OrchError(diagnostic('E_DOMAIN_EMPTY', `field '${limiting}' of shape ${fmt} at origin ${fmt2}${past} leaves no points along ${axis}, so the compute domain is empty`, { hint: `pass fields with at least one point per axis beyond their origin, as GT4Py requires` }));
}

// E_DOMAIN_FIT: the domain and origin reach outside an array

export function domainOriginTooLarge(fmt: string, fmt2: string, name: string, fmt3: string, fmt4: string): OrchError {
  return new OrchError(diagnostic('E_DOMAIN_FIT', `domain ${fmt} at origin ${fmt2} needs field '${name}' to have shape at least ${fmt3}, but it has shape ${fmt4}`, { hint: 'shrink --domain or move --origin so the domain fits inside every field' }));
}

// E_RUNTIME: the library failed while running (out of memory, a bad domain)

export function runtimeError(message: string, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_RUNTIME', message, { loc, hint }));
}

export function initOutOfMemory(symbol: string): OrchError {
  return new OrchError(diagnostic('E_RUNTIME', `${symbol}_init failed (out of memory)`));
}

export function setCallbackFailed(symbol: string, index: number, lastError: string | null): OrchError {
  return new OrchError(diagnostic('E_RUNTIME', `${symbol}_set_callback(${index}): ${lastError}`));
}

export function runFailed(message: string): OrchError {
  return new OrchError(diagnostic('E_RUNTIME', message));
}

// E_OUT_OF_BOUNDS: an array accessed outside its shape: a call's domain and origin that do not fit it, or a read at a variable K offset that leaves it

export function dataIndexOutOfBoundsAtRun(launchName: string, name: string, dim: number, index: number, dims: number, pt: string, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_OUT_OF_BOUNDS', `stencil '${launchName}': field '${name}' is indexed along data dimension ${dim} at index ${index}, outside its ${dims} entries (compute point ${pt})`, { loc, hint }));
}

export function variableKOutOfBounds(launchName: string, name: string, verb: string, idx: number, shape: number, pt: string, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_OUT_OF_BOUNDS', `stencil '${launchName}': field '${name}' is ${verb} at a variable K offset at K index ${idx}, outside its ${shape} levels (compute point ${pt})`, { loc, hint }));
}

export function arrayOutOfBounds(launchName: string, name: string, axis: string, idx: number, shape: string, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_OUT_OF_BOUNDS', `stencil '${launchName}': array '${name}' is accessed at ${axis} index ${idx}, outside its shape [${shape}]`, { loc, hint }));
}

// E_DEBUG_CHECK: a debug checker (NaN, negative tracer) failed

export function debugCheckFailed(message: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DEBUG_CHECK', message, { loc, hint: 'set the debug action to log to continue past failed checks' }));
}

// E_CUDA: the CUDA runtime is missing or failed

export function cudaRuntimeMissing(detail: string): OrchError {
  return new OrchError(diagnostic('E_CUDA', 'cannot load the CUDA runtime (libcudart.so)', { hint: 'install the CUDA toolkit, or point ORCH_CUDART (or CUDA_HOME) at it', detail }));
}

export function cudaCallFailed(what: string, errorString: string, rc: number, hint: string | undefined): OrchError {
  return new OrchError(diagnostic('E_CUDA', `${what} failed: ${errorString} (error ${rc})`, { hint }));
}

// E_NPY_READ: an --in file that cannot be read

export function npyUnreadable(file: string, problem: string): OrchError {
  return new OrchError(diagnostic('E_NPY_READ', `cannot read ${file}: ${problem}`, { hint: 'check the path given to --in' }));
}

export function notNpyFile(file: string, kindOf: string): OrchError {
  return new OrchError(diagnostic('E_NPY_READ', `${file} is ${kindOf}, not a .npy file`, { hint: 'pass a regular file written by numpy.save' }));
}

// E_NPY_FORMAT: a file that is not a valid .npy

export function npyHeaderTruncated(file: string): OrchError {
  return new OrchError(diagnostic('E_NPY_FORMAT', `${file} is truncated: its header is cut off`, { hint: 'the file is incomplete; write it again with numpy.save' }));
}

export function npyDataTruncated(file: string, shape: string, want: number, size: number): OrchError {
  return new OrchError(diagnostic('E_NPY_FORMAT', `${file} is truncated: its header says ${shape}, which takes ${want} bytes, but the file has ${size}`, { hint: 'the file is incomplete; write it again with numpy.save' }));
}

export function npyTrailingBytes(file: string, extra: number, shape: string, want: number): OrchError {
  return new OrchError(diagnostic('E_NPY_FORMAT', `${file} has ${extra} bytes after the data its header describes (${shape}, ${want} bytes in all); it is not one .npy array`, { hint: 'several arrays appended to one file, or a wrong header: save one array per file with numpy.save' }));
}

export function notValidNpy(file: string, message: string): OrchError {
  return new OrchError(diagnostic('E_NPY_FORMAT', `${file} is not a valid .npy file (${message})`, { hint: 'write it with numpy.save' }));
}

export function npyElementCount(file: string, parsedDataCount: number, shape: string): OrchError {
  return new OrchError(diagnostic('E_NPY_FORMAT', `${file} holds ${parsedDataCount} elements but its header says ${shape}`, { hint: 'the file is truncated; write it again' }));
}

// E_NPY_DTYPE: a .npy array of a dtype orch does not support

export function npyDtypeUnsupported(file: string, dtype: string): OrchError {
  return new OrchError(diagnostic('E_NPY_DTYPE', `${file} has dtype ${dtype}, which orch does not support`, { hint: 'use float64, float32, int8, int16, int32, int64 or bool arrays (GT4Py\'s dtypes; it has no unsigned or float16 fields)' }));
}

// E_NPY_ORDER: a .npy array stored in Fortran order

export function npyFortranOrder(file: string): OrchError {
  return new OrchError(diagnostic('E_NPY_ORDER', `${file} is stored in Fortran order`, { hint: 'save a C-ordered array: numpy.save(path, numpy.ascontiguousarray(a))' }));
}

// E_OUTPUT_WRITE: the outputs cannot be written

export function outputsUnwritable(outDir: string, message: string): OrchError {
  return new OrchError(diagnostic('E_OUTPUT_WRITE', `cannot write the outputs to ${outDir}: ${message}`, { hint: 'choose a writable --out folder' }));
}

// a launch requirement of any code

/** A requirement the frontend attached to a launch (its code, message and hint) that the call's values violate. */
export function requirementFailed(code: Code, message: string, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic(code, message, { loc, hint }));
}
