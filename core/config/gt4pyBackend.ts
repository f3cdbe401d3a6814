import { didYouMean, fail } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';

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
  fail('E_BACKEND_UNKNOWN', `unknown backend '${name}'`, {
    loc,
    length,
    hint: `${guess ? `did you mean '${guess}'? ` : ''}orch knows numpy (Python mode), gt:cpu_ifirst, gt:cpu_kfirst and dace:cpu (a CPU preset), gt:gpu, dace:gpu and cuda (a CUDA preset)`,
  });
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
    fail('E_BACKEND_PYTHON', `stencil '${stencil}' has backend '${name}', which runs it in Python mode: orch interprets it and builds no library`, {
      loc,
      length,
      hint: 'run it with orch run --mode python (the default of orch run), or give it a compiled backend, e.g. backend="gt:cpu_ifirst"',
    });
  }
  if (kind === preset.backend) return;
  const wanted = kind === 'cuda' ? 'CUDA' : 'CPU';
  fail('E_BACKEND_PRESET', `stencil '${stencil}' has backend '${name}', which means a ${wanted} preset, but this build uses preset '${preset.name}'`, {
    loc,
    length,
    hint: `build it with --preset ${kind} (or set preset: '${kind}' in orch.config.ts), or change backend= to one for ${preset.backend.toUpperCase()}: ${preset.backend === 'cuda' ? '"gt:gpu"' : '"gt:cpu_ifirst"'}`,
  });
}
