import { askTool } from './askTool.js';
import { mpiShowmeFailed } from '../diagnostics/toolchainErrors.js';

/**
 * The MPI a library links when `compiler.mpi` is on: the include and link flags of the
 * MPI compiler wrapper (`mpicxx --showme:*`, OpenMPI's; MPICH's `mpicxx -show` is not
 * read yet), and its version line, part of the cache key. Libraries built without it
 * need no MPI at all.
 */
interface MpiToolchain {
  compileFlags: string[];
  linkFlags: string[];
  identity: string;
}

let cached: Promise<MpiToolchain> | undefined;

export function mpiToolchain(wrapper = 'mpicxx'): Promise<MpiToolchain> {
  cached ??= (async () => {
    const ask = async (what: string) => {
      const r = await askTool(wrapper, [`--showme:${what}`]);
      if (r.failed) {
        throw mpiShowmeFailed(wrapper, what, r.code === 'ENOENT' ? 'not found' : String(r.stderr || r.shortMessage));
      }
      return String(r.stdout).trim();
    };
    const split = (s: string) => s.split(/\s+/).filter(Boolean);
    const [compile, link, version] = await Promise.all([ask('compile'), ask('link'), ask('version')]);
    return { compileFlags: [...split(compile), '-DORCH_MPI'], linkFlags: split(link), identity: version };
  })();
  cached.catch(() => (cached = undefined));
  return cached;
}
