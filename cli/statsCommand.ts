import { cacheUsage, type EntryUsage } from '../core/cache/cacheUsage.js';
import { formatBytes } from '../core/cache/quantities.js';
import { resolveConfig } from './toolset.js';

/** Per module: its entries summed (a module's entries share its folder). */
function byModule(entries: EntryUsage[]) {
  const modules = new Map<string, { module: string; codepath: string; entries: number; variants: number; bytes: number; hits: number; misses: number }>();
  for (const e of entries) {
    const k = `${e.codepath}:${e.module}`;
    const m = modules.get(k) ?? { module: e.module, codepath: e.codepath, entries: 0, variants: 0, bytes: 0, hits: 0, misses: 0 };
    m.entries++;
    m.variants += e.variants.length;
    m.bytes += e.bytes;
    m.hits += e.hits;
    m.misses += e.misses;
    modules.set(k, m);
  }
  return [...modules.values()];
}

/** `orch info --stats`: the cache's totals, like `ccache -s`. */
export async function statsCommand(opts: { json?: boolean }): Promise<number> {
  const config = await resolveConfig();
  const u = cacheUsage(config.cacheRoot);
  const sum = (f: (e: EntryUsage) => number) => u.entries.reduce((a, e) => a + f(e), 0);
  const stats = {
    cache_root: u.root,
    codepaths: [...new Set(u.entries.map((e) => e.codepath))],
    entries: u.entries.length,
    variants: sum((e) => e.variants.length),
    hits: sum((e) => e.hits),
    misses: sum((e) => e.misses),
    errors: sum((e) => e.errors),
    bytes: u.bytes,
    modules: byModule(u.entries),
    per_entry: u.entries.map((e) => ({
      codepath: e.codepath,
      entry: e.entry,
      variants: e.variants.length,
      bytes: e.bytes,
      hits: e.hits,
      misses: e.misses,
      errors: e.errors,
      last_use: e.variants.length ? new Date(Math.max(...e.variants.map((v) => v.lastUseMs))).toISOString() : undefined,
    })),
  };
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(stats, null, 1)}\n`);
    return 0;
  }
  const lookups = stats.hits + stats.misses;
  const rate = lookups ? ` (${((100 * stats.hits) / lookups).toFixed(1)}% of lookups)` : '';
  const row = (label: string, value: string) => `${label.padEnd(22)}${value}`;
  const lines = [
    row('cache root', stats.cache_root),
    row('code paths', stats.codepaths.join(', ') || '-'),
    row('entries', String(stats.entries)),
    row('variants', String(stats.variants)),
    row('hits', `${stats.hits}${rate}`),
    row('misses', String(stats.misses)),
    row('errors', String(stats.errors)),
    row('cache size', `${formatBytes(stats.bytes)} (${stats.bytes} bytes)`),
  ];
  if (stats.modules.length) {
    lines.push('per module:');
    const multi = stats.codepaths.length > 1;
    for (const m of stats.modules) lines.push(`  ${formatBytes(m.bytes).padStart(9)}  ${String(m.entries).padStart(3)} entr${m.entries === 1 ? 'y  ' : 'ies'} ${String(m.variants).padStart(3)} variant(s)  ${m.hits} hit(s) ${m.misses} miss(es)  ${multi ? `[${m.codepath}] ` : ''}${m.module}`);
    lines.push('per entry:');
    for (const e of stats.per_entry) lines.push(`  ${formatBytes(e.bytes).padStart(9)}  ${String(e.variants).padStart(3)} variant(s)  ${multi ? `[${e.codepath}] ` : ''}${e.entry}${e.last_use ? `  last used ${e.last_use}` : ''}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
