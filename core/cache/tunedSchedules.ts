import path from 'node:path';
import { z } from 'zod';
import { codegenSchema } from '../config/configSchema.js';
import type { CodegenOptions } from '../config/types.js';
import { writeFileAtomic } from '../runtime/atomicWrite.js';
import { ensureDir } from './ensureDir.js';
import { readCacheJson } from './readCacheJson.js';

/**
 * The schedules `orch tune --write-cache` chose for one entry, one per preset, kept in the
 * entry's cache folder (`tuned.json`, beside its variants). A build of the entry with that
 * preset lays them over the preset's codegen options; they are part of the build's inputs,
 * so of its cache key, and its build-info.json records them (`inputs.tuned`).
 */

const TunedSchema = z.strictObject({
  codegen: codegenSchema.partial(),
  /** The domain it was tuned at, and when. */
  domain: z.array(z.number()),
  tunedAt: z.string(),
  median_s: z.number().optional(),
  defaultMedian_s: z.number().optional(),
});

const TunedFileSchema = z.strictObject({ version: z.literal(1), presets: z.record(z.string(), TunedSchema) });

export type TunedSchedule = z.infer<typeof TunedSchema>;

function fileOf(entryRoot: string): string {
  return path.join(entryRoot, 'tuned.json');
}

/** Every preset's tuned schedule of the entry (none when the file is missing or unreadable: builds use the preset's). */
export function readTunedSchedules(entryRoot: string): Record<string, TunedSchedule> {
  const read = readCacheJson(fileOf(entryRoot), TunedFileSchema);
  return read.ok ? read.value.presets : {};
}

/** The codegen options tuned for `preset`, if any. */
export function tunedCodegen(entryRoot: string, preset: string): Partial<CodegenOptions> | undefined {
  return readTunedSchedules(entryRoot)[preset]?.codegen as Partial<CodegenOptions> | undefined;
}

/** Records (or, with null, forgets) the schedule tuned for `preset`; the other presets' stay. */
export function writeTunedSchedule(entryRoot: string, preset: string, schedule: TunedSchedule | null): void {
  const presets = { ...readTunedSchedules(entryRoot) };
  if (schedule) presets[preset] = schedule;
  else delete presets[preset];
  ensureDir(entryRoot);
  writeFileAtomic(fileOf(entryRoot), `${JSON.stringify({ version: 1, presets }, null, 1)}\n`);
}
