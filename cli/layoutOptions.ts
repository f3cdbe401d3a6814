import type { ResolvedConfig } from '../core/config/types.js';
import { DEFAULT_HALO, codePathOfRank, codePaths, parseLayout, type CodePath, type LayoutTarget } from '../core/layout/RankLayout.js';
import { haloNegative, layoutNeedsRankDomain, rankDomainNotSizes, rankNeedsLayout } from '../core/diagnostics/usageErrors.js';

/** The layout options `orch build` and `orch run` share (parsed by bin/orch.ts). */
export interface LayoutOptions {
  /** NXxNY ranks on a tile. */
  layout?: string;
  /** Build or run only this rank's code path. */
  rank?: number;
  /** NX,NY,NZ: the compute domain of one rank. */
  rankDomain?: string;
  /** Halo width (NDSL's n_halo); default 3. */
  halo?: number;
}

interface LayoutRequest {
  target: LayoutTarget;
  /** The code paths to build: all of the layout's, or the one of --rank. */
  codepaths: CodePath[];
}

export { DEFAULT_HALO };

/** The layout a command works for (CLI options over orch.config.ts), or null without one. */
export function layoutRequest(opts: LayoutOptions, config: ResolvedConfig): LayoutRequest | null {
  const configured = config.layout;
  const text = opts.layout ?? configured?.layout;
  if (!text) {
    if (opts.rank !== undefined || opts.rankDomain !== undefined) throw rankNeedsLayout();
    return null;
  }
  const layout = parseLayout(text);
  let domain: number[] | undefined = configured?.domain;
  if (opts.rankDomain !== undefined) {
    domain = opts.rankDomain.split(',').map((x) => Number(x.trim()));
    if (domain.length !== 3 || domain.some((n) => !Number.isInteger(n) || n < 1)) {
      throw rankDomainNotSizes(opts.rankDomain);
    }
  }
  if (!domain) {
    throw layoutNeedsRankDomain();
  }
  const halo = opts.halo ?? configured?.halo ?? DEFAULT_HALO;
  if (!Number.isInteger(halo) || halo < 0) throw haloNegative(halo);
  const codepaths = opts.rank !== undefined ? [codePathOfRank(layout, opts.rank)] : codePaths(layout);
  return { target: { layout, domain: [domain[0], domain[1], domain[2]], halo }, codepaths };
}
