/**
 * The pipeline, written once. Every stage is one row: its position, the hook plugins tap,
 * the product it leaves on the EntryBuild and what the built-in stage does. The
 * Compilation's stage hooks, `runEntry`, the stage names and the docs table
 * (docs/plugins.md, kept in sync by core/pipeline.test.ts) all come from this table.
 */
export const PIPELINE = [
  { name: 'parse', number: 10, product: 'parsed', rewritesIR: true, does: 'Python source to program IR; stencils become coarse stencil nodes; records the files and environment read (the cache key is made from them)' },
  { name: 'simplify1', number: 20, product: null, rewritesIR: true, does: 'the first simplify passes (one tap each): fold compile-time values, drop dead code' },
  { name: 'regionExpansion', number: 30, product: null, rewritesIR: true, does: 'horizontal regions to loops of their own' },
  { name: 'libraryExpansion', number: 40, product: 'expanded', rewritesIR: true, does: 'each stencil node becomes loop nests' },
  { name: 'simplify2', number: 50, product: null, rewritesIR: true, does: 'the loop-nest passes (one tap each): copy propagation, sweep fusion, fusion, scalarization, tiling, planes, …' },
  { name: 'pooling', number: 60, product: null, rewritesIR: true, does: 'transients and temporaries placed in grow-only arenas' },
  { name: 'debugInsertion', number: 70, product: null, rewritesIR: true, does: 'optional checkers after writes' },
  { name: 'codegen', number: 80, product: 'generated', rewritesIR: false, does: 'C++ (or CUDA) sources, header and Python binding in the staging folder' },
  { name: 'compile', number: 90, product: 'compiled', rewritesIR: false, does: 'g++ or nvcc into a shared library; its messages become diagnostics' },
  { name: 'analyze', number: 100, product: 'analyzed', rewritesIR: false, does: 'the static memory report' },
  { name: 'emit', number: 110, product: 'emitted', rewritesIR: false, does: 'IR dump, memory report and build info, then the atomic commit into the cache' },
] as const;

export type StageName = (typeof PIPELINE)[number]['name'];

/** The stage names in pipeline order. */
export const STAGES: readonly StageName[] = PIPELINE.map((s) => s.name);

/** Built-in stages tap their hook at this tap stage; custom passes use others to run before (< 0) or after (> 0). */
export const BUILTIN_STAGE = 0;

/** The stages of `names` (a stage name, or 'simplify' for both simplify stages); [] if none. */
export function stagesNamed(name: string): StageName[] {
  if (name === 'simplify') return ['simplify1', 'simplify2'];
  return STAGES.includes(name as StageName) ? [name as StageName] : [];
}

/** The stage table of docs/plugins.md. */
export function stageTableMarkdown(): string {
  const rows = PIPELINE.map((s) => `| ${s.number} | \`${s.name}\` | ${s.product ? `\`${s.product}\`` : ''} | ${s.does} |`);
  return ['| # | stage hook | product it leaves | what the built-in does |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
