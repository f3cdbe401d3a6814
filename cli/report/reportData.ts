import path from 'node:path';
import type { BuildResult } from '../../core/Compiler.js';
import { BuildInfoSchema, MemoryReportSchema } from '../../core/cache/cacheSchemas.js';
import { readCacheJson } from '../../core/cache/readCacheJson.js';
import type { MemoryReport } from '../../core/EntryBuild.js';
import { memoryBytes, type MemoryBytes } from '../../core/memoryBytes.js';

/** What `orch report` draws: where one build's time went and where its memory goes. */
export interface ReportData {
  created: string;
  preset: string;
  domain: number[];
  /** `stage:tap` -> ms of the passes that ran in this build (none ran for a cache hit). */
  passes: { name: string; ms: number }[];
  entries: {
    name: string;
    status: 'hit' | 'built';
    /** stage -> ms: this build's, or for a hit the build that made the entry */
    stages: Record<string, number>;
    memory?: MemoryBytes;
  }[];
}

/** The report of one build: its pass times, and each entry's stage times and memory report. */
export function reportData(results: BuildResult[], opts: { preset: string; domain: number[] }): ReportData {
  const times = new Map<string, number>();
  for (const r of results) for (const [k, t] of r.passTimes) times.set(k, (times.get(k) ?? 0) + t);
  const entries: ReportData['entries'] = [];
  for (const e of results.flatMap((r) => r.entries)) {
    if ((e.status !== 'hit' && e.status !== 'built') || !e.dir) continue;
    const info = readCacheJson(path.join(e.dir, 'build-info.json'), BuildInfoSchema);
    const seconds = e.status === 'built' ? e.timings : info.ok ? ((info.value as { timings?: Record<string, number> }).timings ?? {}) : {};
    const mem = readCacheJson(path.join(e.dir, 'memory.json'), MemoryReportSchema);
    entries.push({
      name: `${e.moduleRel}:${e.entry}`,
      status: e.status,
      stages: Object.fromEntries(Object.entries(seconds).map(([k, s]) => [k, s * 1000])),
      memory: mem.ok ? memoryBytes(mem.value as unknown as MemoryReport, opts.domain) : undefined,
    });
  }
  return {
    created: new Date().toISOString(),
    preset: opts.preset,
    domain: opts.domain,
    passes: [...times].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms),
    entries,
  };
}
