import { OrchError } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import { diagnostic } from './codes.js';

// The errors of externals, compile-time arguments and backends: one factory per distinct error (after Rollup's src/utils/logs.ts),
// grouped under the code it reports, in the order of CODES in codes.ts.

// E_EXTERNAL_MISSING: from __externals__ import X without a value for X

export function externalNoValue(name: string, guess: string | undefined, regionExternal: boolean, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_EXTERNAL_MISSING', `external '${name}' has no value`, { loc, length, hint: guess ? `did you mean '${guess}'? ` : regionExternal ? `'${name}' is a region external of a rank layout: build with --layout NXxNY --rank-domain NX,NY,NZ (orch computes it per code path), or pass it with --externals` : `pass it with --externals '{"${name}": ...}' or in the stencil's externals={...}` }));
}

// E_EXTERNAL_FUNCTION: an external naming a function whose module cannot be found

export function externalModuleNotFound(external: string, modName: string, basename: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_EXTERNAL_FUNCTION', `external '${external}': module '${modName}' was not found next to ${basename} or on the import path`, { loc, length, hint: 'add its folder to pythonPath in orch.config.ts or to PYTHONPATH' }));
}

export function externalFunctionUnusable(external: string, name: string, modName: string, what: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_EXTERNAL_FUNCTION', `external '${external}': '${name}' in module '${modName}' ${what}`, { loc, length, hint: `define it there as a @gtscript.function, or point {"function": ...} at one` }));
}

// E_EXTERNALS_FORM: externals= that is not a dict of names to values

export function externalsNotDict(why: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_EXTERNALS_FORM', `externals must be a dict of names to values${why}`, { loc, hint: 'write externals={"NAME": value, ...} or a module-level dict' }));
}

// E_COMPILETIME_MISSING: a compile-time program argument without a value

export function constructorArgumentMissing(name: string, clsName: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_COMPILETIME_MISSING', `constructor argument '${name}' of '${clsName}' has no value`, { loc, hint: `pass --define ${name}=<value> or give it a default` }));
}

export function compiletimeArgumentMissing(name: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_COMPILETIME_MISSING', `compile-time argument '${name}' has no value`, { loc, hint: `pass --define ${name}=<value> or give it a default` }));
}

// E_BACKEND_UNKNOWN: a backend= name orch maps to no preset

export function unknownBackend(name: string, guess: string | undefined, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_BACKEND_UNKNOWN', `unknown backend '${name}'`, { loc, length, hint: `${guess ? `did you mean '${guess}'? ` : ''}orch knows numpy (Python mode), gt:cpu_ifirst, gt:cpu_kfirst and dace:cpu (a CPU preset), gt:gpu, dace:gpu and cuda (a CUDA preset)` }));
}

// E_BACKEND_PRESET: a stencil's backend= asks for other hardware than the build's preset

export function backendPresetMismatch(stencil: string, name: string, wanted: string, presetName: string, kind: string, backend: string, backend2: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_BACKEND_PRESET', `stencil '${stencil}' has backend '${name}', which means a ${wanted} preset, but this build uses preset '${presetName}'`, { loc, length, hint: `build it with --preset ${kind} (or set preset: '${kind}' in orch.config.ts), or change backend= to one for ${backend}: ${backend2 === 'cuda' ? '"gt:gpu"' : '"gt:cpu_ifirst"'}` }));
}

// E_BACKEND_PYTHON: a compiled build of a stencil whose backend='numpy' runs it in Python mode

export function backendRunsInPython(stencil: string, name: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_BACKEND_PYTHON', `stencil '${stencil}' has backend '${name}', which runs it in Python mode: orch interprets it and builds no library`, { loc, length, hint: 'run it with orch run --mode python (the default of orch run), or give it a compiled backend, e.g. backend="gt:cpu_ifirst"' }));
}
