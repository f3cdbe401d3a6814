import { didYouMean } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import { backendPresetMismatch, backendRunsInPython, unknownBackend } from '../diagnostics/externalErrors.js';

/**
 * GT4Py/NDSL `backend=` names and what each means to orch, the same table as the Python
 * package's `orch/backends.py`: `numpy` runs in Python mode (interpreted, nothing to
 * build), the CPU backends build with a CPU preset, the GPU backends with a CUDA preset.
 * The value is the name of the orch backend (`Preset.backend`) a build must use.
 */
const BACKENDS: Record<string, 'python' | 'cpu' | 'cuda'> = {
  numpy: 'python',
  'gt:cpu_ifirst': 'cpu',
  'gt:cpu_kfirst': 'cpu',
  'dace:cpu': 'cpu',
  'gt:gpu': 'cuda',
  'dace:gpu': 'cuda',
  cuda: 'cuda',
};

/** What a `backend=` name means; an unknown name is an error at the name, with a did-you-mean. */
export function gt4pyBackend(name: string, loc: SourceLoc, length: number): 'python' | 'cpu' | 'cuda' {
  // `gt:cpu_*` covers every GT4Py CPU layout
  const kind = name.startsWith('gt:cpu_') ? 'cpu' : BACKENDS[name];
  if (kind) return kind;
  const guess = didYouMean(name, Object.keys(BACKENDS));
  throw unknownBackend(name, guess, loc, length);
}

/**
 * A compiled build of a stencil entry whose `backend=` asks for other hardware (or for
 * Python mode) is an error, never a silent build for the wrong target: the preset comes
 * from --preset or the config (default cpu), and the module's backend must agree with it.
 */
export function checkBackend(stencil: string, backend: { name: string; kind: 'python' | 'cpu' | 'cuda'; loc: SourceLoc }, preset: { name: string; backend: string }): void {
  const { name, kind, loc } = backend;
  const length = name.length + 2;
  if (kind === 'python') {
    throw backendRunsInPython(stencil, name, loc, length);
  }
  if (kind === preset.backend) return;
  const wanted = kind === 'cuda' ? 'CUDA' : 'CPU';
  throw backendPresetMismatch(stencil, name, wanted, preset.name, kind, preset.backend.toUpperCase(), preset.backend, loc, length);
}
