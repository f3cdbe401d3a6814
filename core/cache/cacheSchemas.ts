import { z } from 'zod';

/**
 * The shape of every JSON file orch reads back from the cache. The cache is shared and may
 * be edited, truncated or attacked: a file that fails its schema is a miss with a reason
 * (and is rewritten by the next build), never a crash, and no key or name read from it can
 * point outside its entry folder.
 */

/** An entry key or options key: a sha256 in hex, so it names one folder and never a path. */
const Key = z.string().regex(/^[0-9a-f]{64}$/, 'not a 64-digit hex key');
const Sha = Key;
/** A file name inside an entry folder: no separators, not `.`/`..`. */
const FileName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, 'not a plain file name');
const Identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'not an identifier');
const EnvValues = z.record(z.string(), z.string().nullable());

const EntryInputsSchema = z.looseObject({
  module: z.string(),
  modulePath: z.string(),
  entry: z.string(),
  codepath: z.string(),
  preset: z.string(),
  compiler: z.looseObject({ cxx: z.string(), identity: z.string(), flags: z.array(z.string()), cudaArch: z.string().optional() }),
  plugins: z.array(z.object({ name: z.string(), version: z.string() })),
  pythonPath: z.array(z.string()).optional(),
  orch: z.string(),
  native: z.string(),
  layout: z.object({ domain: z.array(z.number()), halo: z.number() }).optional(),
});

export const ManifestSchema = z.object({
  optionsKey: Key,
  inputs: EntryInputsSchema,
  files: z.record(z.string().startsWith('/'), Sha),
  absent: z.array(z.string()).optional(),
  env: EnvValues.optional(),
  key: Key,
  infoHash: Sha.optional(),
});

export const BuildInfoSchema = z.looseObject({
  key: Key,
  module: z.string(),
  entry: z.string(),
  symbol: Identifier,
  library: FileName,
  binding: FileName.optional(),
  created: z.string(),
  inputs: EntryInputsSchema,
  sources: z.record(z.string(), Sha),
  env: EnvValues.optional(),
  checksums: z.record(FileName, Sha),
  warnings: z.array(z.unknown()),
  timings: z.record(z.string(), z.number()),
  layout: z.object({ layout: z.string(), codepath: z.string(), domain: z.array(z.number()), halo: z.number() }).optional(),
  command: z.array(z.string()),
});

/** `memory.json` of an entry, as far as `orch info` prints it. */
export const MemoryReportSchema = z.looseObject({
  arrays: z.array(z.looseObject({ name: z.string(), role: z.string(), dtype: z.string(), shape: z.array(z.string()), pooled: z.boolean(), storage: z.enum(['host', 'device']).optional(), tile: z.string().optional() })),
  totals: z.record(z.string(), z.looseObject({ arrays: z.number(), note: z.string() })).optional(),
});

/** `.modules/<file>-<source>.json`: the entry names of one module source, and their checksum. */
export const ModuleEntriesSchema = z.object({ entries: z.array(Identifier).max(10_000), check: Key });

const Loc = z.object({ file: z.string(), line: z.number(), col: z.number() });

/** `.signatures/<file>-<entry>.json`: an entry's compile-time arguments and backend, and what they were read from: files (sha256), environment variables, paths imports found absent. */
export const EntrySignatureMemoSchema = z.object({
  files: z.record(z.string(), z.string()),
  env: z.record(z.string(), z.string().nullable()),
  absent: z.array(z.string()),
  signature: z.object({
    name: Identifier,
    kind: z.enum(['stencil', 'program']),
    compiletime: z.array(z.object({ name: Identifier, default: z.union([z.number(), z.boolean()]).optional() })),
    loc: Loc,
    backend: z.object({ name: z.string(), kind: z.enum(['python', 'cpu', 'cuda']), loc: Loc }).optional(),
  }),
});

/** `bad/<key>.json`: why an entry's library failed to load. */
export const BadMarkSchema = z.object({ reason: z.string(), time: z.string() });

/** One line of `history.jsonl`. */
export const HistoryRecordSchema = z.object({
  time: z.string(),
  result: z.enum(['hit', 'miss', 'error']),
  key: z.string().optional(),
  reason: z.string().optional(),
});

/** What is wrong with a value read from the cache, in a few words for a miss reason. */
export function schemaProblem(error: z.ZodError): string {
  const first = error.issues[0];
  const where = first?.path.length ? first.path.map(String).join('.') : 'the file';
  return `${where}: ${first?.message ?? 'invalid'}`;
}
