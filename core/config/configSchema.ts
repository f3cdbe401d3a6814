import { z } from 'zod';
import { SIZE_PATTERN } from '../cache/quantities.js';
import { PASS_NAMES, type OrchPlugin } from './types.js';

/**
 * The schema of `orch.config.ts`: every key and value a config may hold. Objects are
 * strict, so a misspelt key is an error (with a did-you-mean), never ignored.
 */

const positiveInt = z.number().int().positive();

const plugin = z.custom<OrchPlugin>((p) => !!p && typeof p === 'object' && typeof (p as OrchPlugin).name === 'string' && typeof (p as OrchPlugin).apply === 'function', {
  message: 'a plugin: an object with a name and an apply(compiler) method',
});

const compilerSchema = z.strictObject({
  cxx: z.string(),
  flags: z.array(z.string()),
  extraFlags: z.array(z.string()),
  cudaArch: z.string(),
  mpi: z.boolean(),
  launcher: z.array(z.string().min(1)).min(1),
  timeoutS: z.number().positive().finite(),
});

export const codegenSchema = z.strictObject({
  loopOrder: z.string().regex(/^(?=.*I)(?=.*J)(?=.*K)[IJK]{3}$/, 'a loop order: I, J and K once each, outermost first, e.g. "KJI"'),
  openmp: z.boolean(),
  lineDirectives: z.boolean(),
  blockSize: z.tuple([positiveInt, positiveInt, positiveInt]),
  columnBlockSize: z.tuple([positiveInt, positiveInt]),
  syncLaunches: z.boolean(),
  tile: z.union([z.tuple([positiveInt, positiveInt]), z.tuple([positiveInt, positiveInt, positiveInt]), z.literal(false), z.literal('auto')]),
  stageSweeps: z.boolean(),
  versionedTileK: z.union([positiveInt, z.literal(false)]),
  sweepBlock: z.union([positiveInt, z.literal(false)]),
  unrollLoops: z.boolean(),
  fuseNests: z.boolean(),
  fuseRegions: z.boolean(),
  vectorWidth: z.union([z.literal(128), z.literal(256), z.literal(512), z.literal(false)]),
  streamVersions: z.boolean(),
  rollVersions: z.boolean(),
  splitRegionTiles: z.boolean(),
  jamLevels: z.union([z.boolean(), positiveInt]),
  fusedStrip: z.union([positiveInt, z.literal(false)]),
  balancedTiles: z.boolean(),
  streamOutputs: z.boolean(),
  prefetchColumns: z.union([positiveInt, z.literal(false)]),
  alignTileColumns: z.boolean(),
  recomputeTemporaries: z.boolean(),
  maxWhileIterations: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});

const passesSchema = z.strictObject(Object.fromEntries(PASS_NAMES.map((n) => [n, z.boolean()])) as Record<(typeof PASS_NAMES)[number], z.ZodBoolean>);

const debugSchema = z.strictObject({
  enabled: z.boolean(),
  nan: z.boolean(),
  tracers: z.array(z.string()),
  threshold: z.number(),
  delp: z.boolean(),
  action: z.enum(['abort', 'log']),
});

const layoutSchema = z.strictObject({
  layout: z.string().regex(/^\d+x\d+$/, "a rank layout 'NXxNY', e.g. '3x3'"),
  domain: z.tuple([positiveInt, positiveInt, positiveInt]),
  halo: z.number().int().nonnegative().optional(),
});

/** A preset given as data (a file `orch tune --write-preset` wrote, or one spread from a built-in). */
const presetSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string(),
  backend: z.string(),
  compiler: compilerSchema.partial().required({ cxx: true, flags: true }),
  codegen: codegenSchema.partial().required({ loopOrder: true, openmp: true, lineDirectives: true }),
  plugins: z.array(plugin),
  debug: debugSchema.partial().optional(),
});

export const cacheSchema = z.strictObject({
  maxSize: z.union([z.number().int().nonnegative(), z.string().regex(SIZE_PATTERN, "a size such as '500M'")]),
});

export const configSchema = z.strictObject({
  modules: z.array(z.string()),
  preset: z.union([z.string(), presetSchema]),
  plugins: z.array(plugin),
  compiler: compilerSchema.partial(),
  codegen: codegenSchema.partial(),
  cacheRoot: z.string(),
  pythonPath: z.array(z.string()),
  externals: z.record(z.string(), z.unknown()),
  defines: z.record(z.string(), z.union([z.number(), z.boolean()])),
  verifyIR: z.boolean(),
  passes: passesSchema.partial(),
  debug: debugSchema.partial(),
  layout: layoutSchema,
  cache: cacheSchema.partial(),
}).partial();

/** The keys each object of the config may hold, by its path ('' for the top level). */
export const CONFIG_KEYS: Record<string, string[]> = {
  '': Object.keys(configSchema.shape),
  compiler: Object.keys(compilerSchema.shape),
  codegen: Object.keys(codegenSchema.shape),
  passes: [...PASS_NAMES],
  debug: Object.keys(debugSchema.shape),
  layout: Object.keys(layoutSchema.shape),
  cache: Object.keys(cacheSchema.shape),
};
