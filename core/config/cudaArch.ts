import { askTool } from '../toolchain/askTool.js';
import { cudaArchEmpty, cudaArchUnknown, notCudaArch } from '../diagnostics/configErrors.js';

/**
 * The GPU architecture a CUDA build targets. Presets name it (`sm_90` for cuda-h100), or
 * say `auto` (the generic `cuda` preset): then it comes from `$CUDA_ARCH`, else from
 * `nvidia-smi` on the build machine. The resolved value is part of the cache key, so a
 * library built for one GPU generation is never reused on another.
 */

interface ResolvedCudaArch {
  /** Comma-separated `sm_XY` list, e.g. 'sm_90' or 'sm_80,sm_90'. */
  arch: string;
  /** Where it came from, for messages and build info. */
  source: string;
}

/** Queries compute capabilities ("9.0" per GPU), or returns null when nvidia-smi is unavailable. */
type ComputeCapQuery = () => Promise<string[] | null>;

const ARCH = /^(?:sm_|compute_)?(\d)\.?(\d)([a-z]?)$/i;

/** 'sm_90', '90', '9.0', 'compute_90', 'sm_90a' -> 'sm_90' / 'sm_90a'; a list stays a list. */
export function normalizeCudaArch(text: string, source: string): string {
  const parts = text.split(/[,\s;]+/).filter(Boolean);
  const out = parts.map((p) => {
    const m = ARCH.exec(p.trim());
    if (!m) {
      throw notCudaArch(p, source);
    }
    return `sm_${m[1]}${m[2]}${m[3].toLowerCase()}`;
  });
  if (!out.length) throw cudaArchEmpty(source);
  return [...new Set(out)].join(',');
}

/** nvidia-smi's compute capability of every visible GPU. */
const nvidiaSmiComputeCaps: ComputeCapQuery = async () => {
  const r = await askTool('nvidia-smi', ['--query-gpu=compute_cap', '--format=csv,noheader'], { timeoutMs: 15000 });
  if (r.failed) return null;
  const caps = String(r.stdout).split('\n').map((l) => l.trim()).filter(Boolean);
  return caps.length ? caps : null;
};

export async function resolveCudaArch(spec: string | undefined, env: NodeJS.ProcessEnv = process.env, query: ComputeCapQuery = nvidiaSmiComputeCaps): Promise<ResolvedCudaArch> {
  if (spec && spec !== 'auto') return { arch: normalizeCudaArch(spec, 'the preset'), source: 'preset' };
  const fromEnv = env.CUDA_ARCH?.trim();
  if (fromEnv) return { arch: normalizeCudaArch(fromEnv, '$CUDA_ARCH'), source: '$CUDA_ARCH' };
  const caps = await query();
  if (!caps) {
    throw cudaArchUnknown();
  }
  // Several GPU generations in one machine: build for each of them.
  return { arch: normalizeCudaArch(caps.join(','), 'nvidia-smi'), source: 'nvidia-smi' };
}
