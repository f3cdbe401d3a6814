import type { HLoop, HorizontalRegion } from './types.js';

/**
 * The regions of a nest whose every statement is a horizontal region (their union is every
 * point where it does anything), or undefined. A tile runs such a nest, and commits what it
 * wrote, only over the bounding box of those regions within its range (plugins/codegen/regionClip.ts).
 */
export function regionsOnly(h: HLoop): HorizontalRegion[] | undefined {
  if (!h.body.length) return undefined;
  const out: HorizontalRegion[] = [];
  for (const s of h.body) {
    if (s.kind !== 'region') return undefined;
    out.push(...s.regions);
  }
  return out;
}
