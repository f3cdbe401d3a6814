import { OrchError } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import { diagnostic } from './codes.js';

// The errors of orch tune: one factory per distinct error (after Rollup's src/utils/logs.ts),
// grouped under the code it reports, in the order of CODES in codes.ts.

// E_TUNE_NOTHING: orch tune with a preset whose backend offers no schedule options

export function nothingToTune(presetName: string, backendName: string): OrchError {
  return new OrchError(diagnostic('E_TUNE_NOTHING', `preset '${presetName}' (backend ${backendName}) has no schedule options to tune`, { hint: 'tune with a CPU preset: --preset cpu or cpu-native' }));
}

// E_TUNE_NO_MATCH: orch tune found no schedule, the default included, that matches the interpreter bit for bit

export function noScheduleMatches(entry: string, problem: string | undefined): OrchError {
  return new OrchError(diagnostic('E_TUNE_NO_MATCH', `${entry}: no schedule, the default included, matched the interpreter bit for bit (${problem})`, { hint: 'run orch run --mode build-and-run --check on this entry: the default build itself differs from Python mode, which is a bug to report' }));
}

// E_TUNE_WRITE: orch tune cannot write the tuned preset or schedule

export function tunedScheduleUnwritable(root: string, message: string): OrchError {
  return new OrchError(diagnostic('E_TUNE_WRITE', `cannot write the tuned schedule into ${root}: ${message}`, { hint: 'make the cache root writable' }));
}

export function presetWithPlugins(baseName: string, changes: string): OrchError {
  return new OrchError(diagnostic('E_TUNE_WRITE', `preset '${baseName}' has plugins, which a written preset (plain data) cannot carry`, { hint: `add the tuned codegen options to your config instead: codegen: ${changes}` }));
}

export function tuneOutputUnwritable(out: string, message: string): OrchError {
  return new OrchError(diagnostic('E_TUNE_WRITE', `cannot write ${out}: ${message}`, { hint: 'make the folder writable, or run orch tune where the config is' }));
}

// E_SERVE_PROTOCOL: orch serve got bytes that are not a request frame (the Python package and the command line are different versions)

export function serveProtocolError(message: string): OrchError {
  return new OrchError(diagnostic('E_SERVE_PROTOCOL', `orch serve: ${message}`, { hint: 'orch serve reads frames from the orch Python package of the same version; update the one that is older' }));
}

// E_TUNE_BUILD: the entry's default schedule does not build or run

export function defaultScheduleFails(entry: string, error: string | undefined): OrchError {
  return new OrchError(diagnostic('E_TUNE_BUILD', `${entry}: the default schedule does not build or run`, { detail: error, hint: 'fix the error orch build reports for this entry, then tune it' }));
}
