import { readdirSync } from 'node:fs';
import path from 'node:path';
import { BuildCache, type BuildInfo } from '../core/cache/BuildCache.js';
import { resolveConfig } from './toolset.js';
import type { MemoryReport } from '../core/EntryBuild.js';
import { MemoryReportSchema } from '../core/cache/cacheSchemas.js';
import { readTunedSchedules } from '../core/cache/tunedSchedules.js';
import { readCacheJson } from '../core/cache/readCacheJson.js';
import { describeClosure, type Closure } from '../core/frontend/closure.js';
import { memoryBytes, type MemoryBytes } from '../core/memoryBytes.js';
import { formatBytes } from '../core/cache/quantities.js';
import { notIntegers } from '../core/diagnostics/codes.js';

/** `--domain NX,NY,NZ`: three non-negative integers. */
export function parseDomain(text: string): number[] {
  const parts = text.split(',').map((x) => x.trim());
  const nums = parts.map(Number);
  if (parts.length !== 3 || parts.some((p) => p === '') || nums.some((n) => !Number.isInteger(n) || n < 0)) throw notIntegers('domain', text);
  return nums;
}

/** The byte totals of a memory report for one domain, in words. */
function describeTotals(m: MemoryBytes): string[] {
  const b = (n: number | undefined) => (n === undefined ? 'unknown' : n < 1000 ? `${n} bytes` : `${n} bytes (${formatBytes(n)})`);
  const t = m.totals;
  return [
    `bytes for domain ${m.domain.join('x')}: the caller's arguments ${b(t.argBytes)}, temporary arena ${b(t.temporaryArenaBytes)}, transient arena ${b(t.transientArenaBytes)}, unpooled ${b(t.unpooledBytes)}`,
    `orch allocates ${b(t.orchBytes)}; ${b(t.totalBytes)} with the arguments`,
  ];
}

/** `orch info [module]`: cache entries, keys, hit/miss history, last miss reason, memory and build info. */
export async function infoCommand(opts: { module?: string; json?: boolean; codepath?: string; domain?: string }): Promise<number> {
  const domain = opts.domain !== undefined ? parseDomain(opts.domain) : undefined;
  const config = await resolveConfig();
  const cache = new BuildCache(config.cacheRoot, opts.codepath ?? 'A');
  // named as the cache names modules (Compiler.moduleRel): outside the root, by absolute path
  const relative = (file: string) => {
    const rel = path.relative(config.root, file);
    return rel.startsWith('..') || path.isAbsolute(rel) ? file.replace(/^[/\\]+/, '') : rel;
  };
  const filter = opts.module ? relative(path.resolve(opts.module)).replace(/\.py$/, '') : undefined;
  const rows = [];
  for (const root of cache.entries()) {
    const rel = path.relative(cache.dir, root);
    const want = filter?.replace(/\\/g, '/');
    if (want && rel !== want && !rel.startsWith(`${want}/`)) continue;
    const history = cache.history(root);
    const latest = cache.latest(root);
    const info = typeof latest === 'string' ? latest : cache.verifyEntry(path.join(root, latest.key));
    const keys = readdirSync(root).filter((n) => /^[0-9a-f]{64}$/.test(n));
    const lastMiss = [...history].reverse().find((h) => h.result === 'miss');
    // memory.json is printed only from an entry whose checksums hold
    const mem = typeof latest !== 'string' && typeof info !== 'string' ? readCacheJson(path.join(root, latest.key, 'memory.json'), MemoryReportSchema) : undefined;
    const memory = mem?.ok ? mem.value : undefined;
    const tuned = readTunedSchedules(root);
    rows.push({
      entry: rel,
      keys,
      latest: typeof latest === 'string' ? undefined : latest.key,
      hits: history.filter((h) => h.result === 'hit').length,
      misses: history.filter((h) => h.result === 'miss').length,
      errors: history.filter((h) => h.result === 'error').length,
      last_miss_reason: lastMiss?.reason,
      recent: history.slice(-5),
      status: typeof info === 'string' ? info : 'ok',
      build: typeof info === 'string' ? undefined : summarize(info),
      memory,
      ...(memory && domain ? { memory_bytes: memoryBytes(memory as unknown as MemoryReport, domain) } : {}),
      ...(Object.keys(tuned).length ? { tuned } : {}),
    });
  }
  if (opts.json) process.stdout.write(`${JSON.stringify(rows, null, 1)}\n`);
  else if (!rows.length) process.stdout.write(`no cache entries under ${cache.dir}\n`);
  else {
    for (const r of rows) {
      process.stdout.write(`${r.entry}\n  key ${r.latest?.slice(0, 16) ?? '-'} (${r.keys.length} variant(s)), ${r.status}\n  history: ${r.hits} hit(s), ${r.misses} miss(es), ${r.errors} error(s)${r.last_miss_reason ? `; last miss: ${r.last_miss_reason}` : ''}\n`);
      for (const h of r.recent) process.stdout.write(`    ${h.time} ${h.result}${h.reason ? `: ${h.reason}` : ''}\n`);
      if (r.build) {
        const b = r.build;
        process.stdout.write(`  built ${b.created} with ${b.preset} (${b.compiler}; ${b.flags}) in ${b.seconds.toFixed(2)} s\n`);
        process.stdout.write(`  library ${b.library} (symbol ${b.symbol}), code path ${b.codepath}, ${b.warnings} warning(s)${b.plugins.length ? `, plugins ${b.plugins.join(', ')}` : ''}\n`);
        process.stdout.write(`  sources ${b.sources.map((f) => path.relative(config.root, f)).join(', ')}\n`);
        if (b.closure) for (const line of describeClosure(b.closure)) process.stdout.write(`  ${line}\n`);
      }
      // schedules orch tune --write-cache recorded: builds with that preset use them
      for (const [preset, t] of Object.entries(r.tuned ?? {})) {
        const schedule = Object.entries(t.codegen).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('x') : String(v)}`).join(' ');
        process.stdout.write(`  tuned for preset ${preset}: ${schedule} (at ${t.domain.join('x')}, ${t.tunedAt})\n`);
      }
      const mem = r.memory as MemoryReport | undefined;
      if (mem?.arrays) {
        // a CUDA build's arrays are all device memory: say so once, and what that means per role
        const device = mem.arrays.length > 0 && mem.arrays.every((a) => a.storage === 'device');
        process.stdout.write(`  memory: ${mem.arrays.length} array(s)${device ? ' in GPU device memory' : ''}\n`);
        const sized = r.memory_bytes?.arrays;
        for (const [i, a] of mem.arrays.entries()) {
          const b = sized?.[i];
          const bytes = b ? `: ${b.bytes === undefined ? 'size unknown for this domain' : `${b.shape!.join('x')} = ${b.bytes} bytes${b.tile ? ' per tile' : ''}`}` : '';
          process.stdout.write(`    ${a.role.padEnd(9)} ${a.name} ${a.dtype}[${a.shape.join(', ')}]${a.pooled ? ' pooled' : ''}${a.tile ? ` ${a.tile}` : ''}${bytes}\n`);
        }
        if (r.memory_bytes) for (const line of describeTotals(r.memory_bytes)) process.stdout.write(`  ${line}\n`);
        if (device) {
          for (const [role, t] of Object.entries(mem.totals ?? {})) if (t.arrays && t.note) process.stdout.write(`    ${role}: ${t.note}\n`);
        }
      }
    }
  }
  return 0;
}

function summarize(info: BuildInfo) {
  return {
    created: info.created,
    preset: info.inputs.preset,
    compiler: info.inputs.compiler.identity,
    flags: info.inputs.compiler.flags.join(' '),
    seconds: Object.values(info.timings ?? {}).reduce((a, b) => a + b, 0),
    timings: info.timings,
    library: info.library,
    symbol: info.symbol,
    codepath: info.inputs.codepath,
    plugins: info.inputs.plugins.map((p) => `${p.name}@${p.version}`),
    warnings: info.warnings?.length ?? 0,
    sources: Object.keys(info.sources ?? {}),
    /** an orchestrated component's resolved closure */
    closure: info.inputs.closure as Closure | undefined,
  };
}
