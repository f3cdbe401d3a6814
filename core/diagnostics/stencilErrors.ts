import { OrchError } from '../diagnostics.js';
import type { LaunchRequirement, SourceLoc } from '../ir/types.js';
import { diagnostic } from './codes.js';

// The errors of stencils: one factory per distinct error (after Rollup's src/utils/logs.ts),
// grouped under the code it reports, in the order of CODES in codes.ts.

// E_STENCIL_STMT: a stencil statement outside a with computation(...) block, or of a kind stencils cannot hold

export function expectedComputation(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_STENCIL_STMT', 'expected `with computation(PARALLEL|FORWARD|BACKWARD)`', { loc, hint: 'stencil bodies are made of `with computation(...), interval(...):` blocks' }));
}

export function computationBodyNotIntervals(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_STENCIL_STMT', 'inside `with computation(...)` without an interval, every statement must be a `with interval(...)` block', { loc, hint: 'write `with computation(...), interval(...):` or nest `with interval(...):` blocks' }));
}

export function computationBlockForm(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_STENCIL_STMT', 'a computation block takes computation(...), at most one interval(...) and then at most one horizontal(...)', { loc, hint: 'nest further intervals as `with interval(...):` blocks' }));
}

export function expectedInterval(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_STENCIL_STMT', 'expected interval(...)', { loc, hint: 'write interval(...), interval(0, 1), interval(1, None), interval(0, -1) ...' }));
}

export function stencilExpressionStatement(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_STENCIL_STMT', 'an expression statement has no effect in a stencil', { loc, hint: 'assign the value to a field or temporary' }));
}

export function nestedNonRegionWith(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_STENCIL_STMT', 'only `with horizontal(region[...])` may be nested inside an interval', { loc, hint: 'computation and interval blocks cannot be nested in statements' }));
}

export function statementOutsideComputation(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_STENCIL_STMT', 'statements of a stencil must be inside a `with computation(...)` block', { loc, hint: 'wrap the statement in `with computation(PARALLEL), interval(...):`' }));
}

export function functionLevelDeclaration(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_STENCIL_STMT', 'a declaration at function level, outside every computation, that is not a field temporary', { loc, hint: 'GT4Py takes field temporaries here (tmp: Field[(np.float64, (3,))] = 0); declare scalar temporaries where they are first assigned inside a computation (tmp: float = 0)' }));
}

// E_STENCIL_EMPTY: a stencil without a computation

export function stencilNoComputation(defName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_STENCIL_EMPTY', `stencil '${defName}' has no computation`, { loc, hint: 'add a `with computation(PARALLEL), interval(...):` block' }));
}

// E_ORDER: an iteration order other than PARALLEL, FORWARD or BACKWARD

export function iterationOrderUnknown(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ORDER', 'the iteration order must be PARALLEL, FORWARD or BACKWARD', { loc, hint: 'import PARALLEL, FORWARD, BACKWARD from gt4py.cartesian.gtscript' }));
}

// E_INTERVAL: an interval(...) orch cannot read

export function intervalBoundDependsOnK(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL', 'an interval bound cannot depend on K', { loc, hint: 'bound the interval with scalars or IJ fields; test K inside the interval with if K < ...' }));
}

export function intervalBoundHasK(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL', `Using field \`${name}\` with a K-Axis as a bound for an interval is invalid.`, { loc, hint: `GT4Py rejects this too: bound intervals with a scalar or an IJ field (Field[IJ, int]); copy the level you need into one first` }));
}

export function intervalBoundAtOffset(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL', `Invalid interval range specification: the interval bound '${name}' is read at an offset`, { loc, hint: `GT4Py rejects this too: read the bound at the column itself, ${name} or ${name}[0, 0]` }));
}

export function intervalBoundBool(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL', 'an interval bound must be a number, got a bool', { loc, hint: 'bound the interval with an int scalar or an int IJ field' }));
}

export function intervalBoundWritten(written: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL', `'${written}' bounds the interval and is written inside it`, { loc, hint: `compute '${written}' in an earlier computation, then bound the interval with it` }));
}

export function runtimeIntervalNotAlone(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL', 'an interval with a bound known only at run time must be the only interval of its computation', { loc, length: 'interval'.length, hint: 'give it its own `with computation(...), interval(...):` block; consecutive computations run in the order they are written' }));
}

export function intervalArguments(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL', 'interval takes (...) or (start, end)', { loc, hint: 'write interval(...) or interval(start, end)' }));
}

export function intervalStartsAtNone(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL', 'Invalid interval range specification: an interval starts at a level, not at None', { loc, hint: 'GT4Py rejects this too: start from the bottom level, interval(0, -1); None ends an interval at the top, interval(1, None)' }));
}

export function intervalAlwaysEmpty(intervalText: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL', `Invalid interval range specification: ${intervalText} is empty for every domain`, { loc, length: 'interval'.length, hint: 'the start must lie below the end: positive bounds count from the bottom level, negative ones from the top (interval(1, -1) skips both)' }));
}

export function intervalAxisIndex(id: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL', `Invalid interval range specification: ${id}[...] cannot be written in an interval`, { loc, hint: `GT4Py rejects this too: write the level as an integer, interval(2, -1), or pass the axis index as an external` }));
}

export function intervalBoundNotInteger(described: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL', `interval bound must be an integer or None, got ${described}`, { loc, hint: 'use integers: interval(0, 1), interval(1, None), interval(0, -1)' }));
}

// E_INTERVAL_ORDER: intervals written out of the order a FORWARD or BACKWARD computation runs them

export function intervalsOutOfOrder(interval: string, previous: string, order: string, backward: boolean, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL_ORDER', `Intervals must be specified in order of execution: ${interval} comes after ${previous} but runs before it in a ${order} computation`, { loc, length: 'interval'.length, hint: `write the intervals in the order they run (${backward ? 'top level first' : 'bottom level first'}), as GT4Py requires` }));
}

// E_INTERVAL_OVERLAP: two intervals of one computation share levels

export function overlappingIntervals(interval: string, previous: string, line: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_INTERVAL_OVERLAP', `Overlapping intervals detected: ${interval} overlaps ${previous} (line ${line}) in the same computation`, { loc, length: 'interval'.length, hint: 'the intervals of one computation must not share levels: split the work into separate `with computation(...)` blocks, or adjust the bounds' }));
}

// E_REGION: a horizontal(region[...]) orch cannot read

export function nestedRegion(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_REGION', 'Cannot nest `with` node inside a horizontal region.', { loc, hint: 'GT4Py refuses a region inside a region: write the inner block as its own `with horizontal(region[...])` block after the outer one, on the intersection of both regions' }));
}

export function regionNotIJ(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_REGION', 'expected region[i, j]', { loc, hint: 'write region[i_start, :] or region[i_start - 1 : i_start + 1, j_end]' }));
}

export function regionNotImported(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_REGION', 'expected region[i, j]', { loc, hint: 'import region from gt4py.cartesian.gtscript' }));
}

export function regionAxisEndsOnly(ax: string, index: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_REGION', `Invalid horizontal range specification: expected ${ax}[0] or ${ax}[-1], got ${ax}[${index}]`, { loc, hint: `GT4Py takes only the ends of the axis written in a region, with offsets added to them: write ${ax}[0] + 2 or ${ax}[-1] - 1` }));
}

export function regionBoundWrongAxis(axis: string, axis2: string, axis3: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_REGION', `region bound on the ${axis} axis uses an ${axis2} index`, { loc, hint: `use ${axis3}_start/${axis3}_end style externals for the ${axis} axis` }));
}

export function regionBoundNotIndex(described: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_REGION', `region bound must be an axis index or an integer, got ${described}`, { loc, hint: 'pass AxisIndex externals such as gtscript.I[0] + 1' }));
}

// E_DATA_DIMS: a field with data dimensions indexed or assigned in a way GT4Py does not define (wrong index count, index out of range, mismatched extents)

export function dataDimsWithoutIndex(name: string, dimsCount: number, dims: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `'${name}' has ${dimsCount} data dimensions and is used without a data index`, { loc, length, hint: `GT4Py unrolls whole-field expressions for vectors and matrices only: index each element (${name}[0, 0, 0][${dims}])` }));
}

export function operandDataDimsMismatch(op: string, treeDims: string, treeDims2: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `'${op}' of operands with data dimensions (${treeDims}) and (${treeDims2})`, { loc, hint: 'GT4Py applies an operator element by element to operands of the same extents, or to a scalar and a vector' }));
}

export function matmulOperands(md: string, vd: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `'@' of operands with data dimensions (${md}) and (${vd})`, { loc, hint: 'GT4Py multiplies a matrix (n, m) by a vector (m,) with @ and nothing else: write M @ v, or M.T @ v for the transpose' }));
}

export function transposeNotMatrix(dims: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `.T of a value with data dimensions (${dims})`, { loc, hint: 'GT4Py transposes matrices only (fields with two data dimensions)' }));
}

export function operatorOnDataDims(op: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `'${op}' of fields with data dimensions`, { loc, hint: 'GT4Py unrolls only arithmetic, @ and .T over whole fields with data dimensions: compare single elements (v[0, 0, 0][1])' }));
}

export function assignedDataDimsMismatch(target: string, dims: string, have: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `'${target}' has data dimensions (${dims}) but is assigned a value with (${have})`, { loc, hint: 'GT4Py rejects this too ("Assignment dimension mismatch"): assign a value with the same data dimensions, a scalar, or one element at a time' }));
}

export function readWithoutDataIndex(name: string, dims: string, zeros: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `field '${name}' has data dimensions (${dims}) but is read without a data index`, { loc, length, hint: `index its elements as GT4Py requires here: ${name}[0, 0, 0][${zeros}] or ${name}.A[${zeros}]; a whole field is only assigned whole to a field with the same data dimensions` }));
}

export function fieldNoDataIndex(name: string, axes: string, dtype: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `field '${name}' has no data dimensions, so it takes no data index`, { loc, length, hint: `'${name}' is a ${axes} field of ${dtype}: index it with offsets only (${name}[0, 0, 0])` }));
}

export function dataIndexCountMismatch(name: string, dimsCount: number, dims: string, indexCount: number, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `field '${name}' has ${dimsCount} data dimension(s) (${dims}) but is indexed with ${indexCount}`, { loc, length, hint: 'GT4Py rejects this too ("Incorrect data index length"): give one index per data dimension' }));
}

export function dataIndexNotIntegerValue(described: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `a data index must be an integer, got ${described}`, { loc, hint: 'index data dimensions with integer constants or int expressions' }));
}

export function dataIndexOutOfBounds(index: number, dim: number, name: string, dims: number, last: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `Data index out of bounds: index ${index} is out of range for data dimension ${dim} of '${name}', which has ${dims} entries`, { loc, hint: `GT4Py rejects this too ("Data index out of bounds"): use an index in [0, ${last}]` }));
}

export function dataIndexNotInteger(dtype: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `a data index must be an integer, got ${dtype}`, { loc, hint: "GT4Py refuses this too when it builds the stencil ('Data indices must be integer expressions'): convert it with int32(...) or compute it in an int temporary" }));
}

export function temporaryDataIndexAtRunTime(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `temporary '${name}' is indexed with a data index computed at run time`, { loc, hint: 'GT4Py accepts this; orch keeps one temporary per element and indexes temporaries with constants only: pass the values as a field argument with data dimensions, or select the element with if/elif' }));
}

export function dataIndicesAtRunTime(name: string, computed: number, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `'${name}' is read with ${computed} indices computed at run time`, { loc, length, hint: 'GT4Py accepts this; orch computes one index of a read at run time (a data index or a K offset): make the others constants, selecting with if/elif' }));
}

export function operationOnDataDimensions(operation: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `${operation} of fields with data dimensions`, { loc, hint: 'GT4Py unrolls only arithmetic (+ - * / // % **), @ and .T over whole fields with data dimensions: use single elements (v[0, 0, 0][1]) anywhere else' }));
}

export function fieldNoDataIndexForDecl(declName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_DATA_DIMS', `field '${declName}' has no data dimensions, so it takes no data index`, { loc, hint: `write ${declName}[0, 0, 0] = ...` }));
}

// E_OFFSET: a field access with the wrong number or kind of offsets

export function globalTableOffset(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `'${name}' has no spatial axes (a GlobalTable), so it takes no offsets`, { loc, hint: `GT4Py rejects this too: index its data with ${name}.A[...]` }));
}

export function offsetCountMismatch(name: string, found: string, axes: string, zeros: string, axes2: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `Incorrect offset specification detected for ${name}. Found index=[${found}], but ${name} field has dimensions (${axes})`, { loc, hint: `give one offset per axis of the field: ${name}[${zeros}], or name the axes (${name}[${axes2} + 1])` }));
}

export function offsetNotConstant(axis: string, name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `the ${axis} offset of '${name}' must be a constant`, { loc, hint: 'only K offsets may be computed at run time (f[0, 0, lev]); I and J offsets are integer literals, constants or externals' }));
}

export function fieldNoKOffset(name: string, axes: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `field '${name}' has no K axis, so it takes no K offset`, { loc, hint: `'${name}' is a ${axes} field` }));
}

export function variableKOffset(dtype: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `a variable K offset must be an integer, got ${dtype}`, { loc, hint: 'compute the level index in an int temporary or an int field (e.g. lev = 0; ... f[0, 0, lev])' }));
}

export function offsetNotInteger(described: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `field offsets must be integers, got ${described}`, { loc, hint: 'write offsets like q[1, 0, -1]' }));
}

export function fieldOffsetOnMissingAxis(name: string, axis: string, axes: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `field '${name}' has no ${axis} axis, so its ${axis} offset must be 0`, { loc, hint: `'${name}' is a ${axes} field` }));
}

export function absoluteKBadSyntax(why: string, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `Absolute K index: Bad syntax. ${why}`, { loc, hint }));
}

export function absoluteKAtK(message: string, id: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', message, { loc, hint: `GT4Py rejects this too: ${id}.at(K=K) is ${id}[0, 0, 0], or simply ${id}; use ${id}[K + 1] for a level relative to the current one` }));
}

export function absoluteKNotInteger(dtype: string, id: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `an absolute K index must be an integer, got ${dtype}`, { loc, hint: `convert it with int(...): ${id}.at(K=int(level))` }));
}

export function absoluteKWithoutKAxis(id: string, axes: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `field '${id}' (${axes}) has no K axis, so it takes no absolute K index`, { loc, hint: `GT4Py rejects this too: read '${id}' without .at(K=...)` }));
}

export function absoluteKOfOffsetAlias(id: string, name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `Absolute K index: '${id}' stands for '${name}' at an I/J offset, and absolute K reads are centered in I and J`, { loc, hint: `pass '${name}' itself to the helper, or copy it at its offset into a temporary first` }));
}

export function absoluteKNotCalled(spelled: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `Absolute K index: Bad syntax. '.at' is a method: call it as ${spelled}(K=...)`, { loc, hint: 'read a level with field.at(K=level), optionally with ddim=[...] for data dimensions' }));
}

export function offsetMixesNamesAndPlain(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `field '${name}' is indexed by axis names and plain offsets at once`, { loc, hint: 'name every axis (q[I + 1, K - 1]) or give every offset (q[1, 0, -1])' }));
}

export function fieldNoOffsetAxis(name: string, axes: string, axis: string, axes2: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `field '${name}' (${axes}) has no ${axis} axis`, { loc, hint: `'${name}' is a ${axes} field: offset it along ${axes2}` }));
}

export function duplicateOffsetAxis(axis: string, name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `Duplicate axis found: ${axis} (the ${axis} offset of '${name}' is given twice)`, { loc, hint: `write each axis once: ${name}[I + 1, K - 1]` }));
}

export function offsetAxisOrder(axis: string, later: string, name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_OFFSET', `Axis ${axis} is specified out of order (after ${later} in the index of '${name}')`, { loc, hint: `GT4Py takes the axes in I, J, K order: ${name}[I - 1, J]` }));
}

// E_AXIS_VALUE: the axis I or J used as a value, or K outside a stencil

export function parallelAxisQueried(axis: string, line: number, col: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_AXIS_VALUE', `Parallel axis ${axis} can't be queried - only K - at line ${line} (column ${col})`, { loc, hint: `GT4Py rejects this too (only K can be queried, experimentally): pass the ${axis} index in an int field if the computation needs it` }));
}

export function axisKOutsideStencil(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_AXIS_VALUE', 'the axis K is used as a value outside a stencil', { loc, hint: 'K is the level index of a stencil computation (GT4Py\'s experimental iterator access): read it inside a stencil, or pass the level in a scalar' }));
}

// E_NOT_A_FIELD: a field was expected

export function expectedField(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_NOT_A_FIELD', 'expected a field', { loc, hint: 'pass a field argument or a temporary' }));
}

// E_ANNOTATION: a type annotation where only a new temporary may carry one

export function dtypesNotDict(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ANNOTATION', 'dtypes must be a dict of names to types', { loc, hint: 'write dtypes={"MySymbol": Field[IJ, np.float64]}' }));
}

export function annotationNotNewTemporary(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ANNOTATION', 'only a new temporary name can carry a type annotation', { loc, hint: 'declare the temporary first (tmp: float = 0), then assign at an offset; GT4Py rejects annotated offset writes too' }));
}

export function annotationNotDtype(targetId: string, why: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ANNOTATION', `the annotation of '${targetId}' is not a dtype or a field type${why}`, { loc, hint: 'annotate temporaries with a dtype (float, int, np.float64, ...) or Field[IJ, dtype]' }));
}

export function annotatedNameDefined(targetId: string, declaredAs: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_ANNOTATION', `'${targetId}' is already defined${declaredAs}`, { loc, length, hint: 'annotate a temporary only where it is first assigned, with one type' }));
}

export function temporaryAlreadyDefined(targetId: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_ANNOTATION', `'${targetId}' is already defined`, { loc, length, hint: 'declare each temporary once' }));
}

// E_TEMP_AXES: a temporary declared with axes other than IJK or IJ

export function temporaryAxesUnsupported(axes: string, targetId: string, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_TEMP_AXES', `Typed temporaries must be IJ, temporaries for axes ${axes} is not yet available: '${targetId}'`, { loc, hint }));
}

export function temporaryDataDimsInComputation(targetId: string, dims: string, dimsCount: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_TEMP_AXES', `temporary '${targetId}' is declared with data dimensions inside a computation`, { loc, hint: `GT4Py declares temporaries with data dimensions at function level, before the computations, with a constant initial value: ${targetId}: Field[(dtype, (${dims}${dimsCount === 1 ? ',' : ''}))] = 0` }));
}

export function temporaryAxesAtFunctionLevel(targetId: string, axes: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_TEMP_AXES', `temporary '${targetId}' is declared at function level with axes ${axes}`, { loc, hint: 'GT4Py rejects this too ("only IJK is currently supported for temporaries" at function level): declare a 2-D temporary inside a computation, tmp: Field[IJ, float] = 0' }));
}

// E_WRITE_AXES: a field written in a computation whose parallel axes it lacks

export function writtenWithoutParallelAxes(role: string, declName: string, axes: string, order: string, need: string, at: { loc?: SourceLoc; length?: number }): OrchError {
  return new OrchError(diagnostic('E_WRITE_AXES', `${role === 'temp' ? 'temporary' : 'field'} '${declName}' (${axes}) is written in a ${order} computation, whose parallel axes are ${need}`, { ...at, hint: order === 'PARALLEL' && axes === 'IJ' ? `GT4Py rejects this too (the levels of a PARALLEL computation run at once and would all write the same ${axes} point): write '${declName}' in a computation(FORWARD) or computation(BACKWARD), where the last level written wins` : `GT4Py rejects this too (the points that run at once would write the same element): only fields with the I and J axes can be written` }));
}

// E_WRITE_OFFSET: a write at an offset (GT4Py rejects I/J offsets and K offsets in PARALLEL)

export function writtenAtOffset(role: string, name: string, offset: string, loc: SourceLoc, length: number, hint: string): OrchError {
  return new OrchError(diagnostic('E_WRITE_OFFSET', `${role === 'temp' ? 'temporary' : 'field'} '${name}' is written at ${offset}`, { loc, length, hint }));
}

// E_WRITE_READ_OFFSET: a field (or a temporary from an earlier block) read at a horizontal offset in an interval that also writes it

export function offsetReadInWhileLoop(name: string, offsetText: string, at: { loc?: SourceLoc; length?: number }): OrchError {
  return new OrchError(diagnostic('E_WRITE_READ_OFFSET', `Illegal write and read with horizontal offset detected for '${name}': it is written in this while loop and read in it at horizontal offset ${offsetText}`, { ...at, hint: 'GT4Py rejects this: a while loop runs point by point, so neighbours would be at different iterations. Move the offset read out of the loop' }));
}

export function offsetReadOfWrittenField(name: string, offsetText: string, temp: boolean, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_WRITE_READ_OFFSET', `Illegal write and read with horizontal offset detected for '${name}': it is read at horizontal offset ${offsetText} in a computation interval that also writes it`, { loc, length, hint: temp ? `GT4Py rejects this for a temporary assigned in an earlier \`with computation(...)\` block (only temporaries first assigned in this block may be): assign the new values to a new temporary, or read '${name}' in a separate block` : `GT4Py rejects this for field arguments (the result would depend on the order points are computed): write the new values to another field or a temporary, or read '${name}' in a separate \`with computation(...)\` block` }));
}

// E_SELF_ASSIGN_OFFSET: a field assigned from its own value at a horizontal offset

export function selfAssignmentAtOffset(name: string, offsetText: string, at: { loc?: SourceLoc; length?: number }): OrchError {
  return new OrchError(diagnostic('E_SELF_ASSIGN_OFFSET', `Self-assignment with offset in I or J is illegal: '${name}' is assigned from its own value at horizontal offset ${offsetText}`, { ...at, hint: `GT4Py rejects this: points would read neighbours that are already updated. Assign to a new temporary (${name}_new = ...) and use that` }));
}

// E_PARALLEL_K_OFFSET: a field written in a PARALLEL computation interval of more than one level and read in it at another (or a variable) K offset

export function parallelKOffsetRead(what: string, name: string, offsetText: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_PARALLEL_K_OFFSET', `${what}: '${name}' is written in this computation interval and read in it at K offset ${offsetText}`, { loc, length, hint: `the levels of a PARALLEL computation have no order, so the result would depend on it (GT4Py rejects it too): use computation(FORWARD) or computation(BACKWARD) for a recurrence, or write the new values to another field or a new temporary` }));
}

// E_NOT_GTSCRIPT_FUNCTION: a stencil calls a function that is not decorated with @gtscript.function (GT4Py raises TypeError)

export function notGtscriptFunction(fnName: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_NOT_GTSCRIPT_FUNCTION', `${fnName} is not a gtscript function`, { loc, length, hint: `GT4Py refuses calls of undecorated functions in stencils (TypeError): decorate '${fnName}' with @gtscript.function` }));
}

// E_ASSIGN_SCALAR: an assignment to a scalar argument

export function scalarArgumentAssigned(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_ASSIGN_SCALAR', `'${name}' is a scalar argument and cannot be assigned`, { loc, hint: 'assign the value to a new temporary name instead' }));
}

// E_RETURN: a return anywhere but at the end of a gtscript function

export function returnNotAtEnd(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_RETURN', 'return is only allowed at the end of a @gtscript.function', { loc, hint: 'stencils write their results into fields' }));
}

export function returnLastStatement(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_RETURN', 'return must be the last statement of a helper', { loc, hint: 'compute the result into a local and return it at the end' }));
}

export function helperReturnValue(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_RETURN', 'a helper must return a value', { loc, hint: 'return an expression or a tuple' }));
}

export function helperDoesNot(fnName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_RETURN', `helper '${fnName}' does not return a value`, { loc, hint: 'end the helper with `return <expression>`' }));
}

// E_UNPACK: a tuple unpacking orch cannot match (names against axes or values)

export function shapeUnpackCount(arrName: string, axesCount: number, eltsCount: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNPACK', `'${arrName}' has ${axesCount} axes, ${eltsCount} names given`, { loc, hint: 'unpack one name per axis' }));
}

export function unpackNotTuple(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNPACK', 'only tuples and field.shape can be unpacked in a program', { loc, hint: 'assign values one by one' }));
}

export function unpackCountMismatch(eltsCount: number, eltsCount2: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNPACK', `cannot unpack ${eltsCount} values into ${eltsCount2} targets`, { loc, hint: 'match the number of targets and values' }));
}

export function tupleToSingleTarget(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNPACK', 'a tuple cannot be assigned to a single target', { loc, hint: 'unpack it: a, b = ...' }));
}

export function unpackNotHelperCall(loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNPACK', 'only a helper call returning a tuple can be unpacked', { loc, hint: 'return a tuple from a @gtscript.function' }));
}

export function helperReturnCount(fnName: string, count: number, expected: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNPACK', `${fnName}() returns ${count} value(s), ${expected} expected`, { loc, hint: 'match the number of targets to the helper\'s return' }));
}

export function helperReturnsTuple(fnName: string, rCount: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_UNPACK', `${fnName}() returns ${rCount} values`, { loc, hint: 'unpack them: a, b = f(...)' }));
}

// E_SHAPE_INDEX: field.shape[n] past the field's axes

export function shapeIndexOutOfRange(axes: string, last: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_SHAPE_INDEX', `shape index out of range for a ${axes} field`, { loc, hint: `use 0..${last}` }));
}

// Launch requirements: checked when a call's domain is known, at run time or in the interpreter;
// `{0}`, `{1}` ... in the message stand for the values the requirement's args take then.

/** E_EMPTY_INTERVAL: an interval that needs `min` K levels. */
export function emptyIntervalRequirement(interval: string, stencil: string, min: number): Pick<LaunchRequirement, 'code' | 'message' | 'hint'> {
  return {
    code: 'E_EMPTY_INTERVAL',
    message: `${interval} of stencil '${stencil}' needs at least ${min} K level${min === 1 ? '' : 's'}, but this call's domain has {0}`,
    hint: `call '${stencil}' with a K domain of at least ${min} levels, or move this computation into a stencil that is only called on larger domains`,
  };
}

/** E_INTERVAL_BOUNDS: an interval whose bounds, known at run time ({0}, {1}), must lie in the K domain ({2}). */
export function intervalBoundsRequirement(stencil: string): Pick<LaunchRequirement, 'code' | 'message' | 'hint'> {
  return {
    code: 'E_INTERVAL_BOUNDS',
    message: `the interval of stencil '${stencil}' with bounds known at run time covers levels [{0}, {1}) in this call, outside its K domain of {2} levels`,
    hint: "keep the bounds between 0 and the K size of the call's domain (GT4Py's debug backend would run the levels beyond the domain, in the halo; orch refuses instead)",
  };
}
