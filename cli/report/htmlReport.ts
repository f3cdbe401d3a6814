import { STAGES } from '../../core/pipeline.js';
import { formatBytes } from '../../core/cache/quantities.js';
import type { ArrayBytes, MemoryBytes } from '../../core/memoryBytes.js';
import { barChart, escapeXml, legend, type Bar } from './barChart.js';
import type { ReportData } from './reportData.js';

/** One colour per pipeline stage, in pipeline order; custom stage names get grey. */
const STAGE_COLOURS = ['#4e79a7', '#59a14f', '#9c755f', '#f28e2b', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#e15759', '#bab0ac', '#17becf'];
const stageColour = (stage: string) => STAGE_COLOURS[STAGES.indexOf(stage as (typeof STAGES)[number])] ?? '#999999';

/** Memory kinds: the caller's arguments, arrays in an arena, arrays allocated alone, per-tile scratch. */
export const MEMORY_COLOURS = { argument: '#7f8fa6', pooled: '#2e9e5b', unpooled: '#e8702a', tile: '#8e6cc0' } as const;
function memoryKind(a: ArrayBytes): keyof typeof MEMORY_COLOURS {
  if (a.tile) return 'tile';
  if (a.role === 'arg') return 'argument';
  return a.pooled ? 'pooled' : 'unpooled';
}

const ms = (t: number) => `${t.toFixed(t < 10 ? 2 : 1)} ms`;
const bytes = (n: number | undefined) => (n === undefined ? 'unknown' : `${formatBytes(n)}`);

function passSection(data: ReportData): string {
  if (!data.passes.length) return '<p class="note">No pass ran: every entry was a cache hit. The times per entry below are those of the builds that made them; <code>orch clean</code>, then <code>orch report</code> again, times each pass.</p>';
  const total = data.passes.reduce((a, p) => a + p.ms, 0);
  const bars: Bar[] = data.passes.map((p) => {
    const stage = p.name.split(':')[0];
    return { label: p.name, segments: [{ value: p.ms, colour: stageColour(stage), title: `${p.name}: ${ms(p.ms)}` }], valueText: `${ms(p.ms)} (${((100 * p.ms) / (total || 1)).toFixed(1)}%)` };
  });
  return `<p>${data.passes.length} passes (stage:plugin), slowest first: ${ms(total)} summed over the entries built (entries build in parallel, so this is more than the wall time).</p>${barChart(bars, 'time per pass')}`;
}

function entrySection(data: ReportData): string {
  const used = STAGES.filter((s) => data.entries.some((e) => (e.stages[s] ?? 0) > 0));
  const bars: Bar[] = data.entries.map((e) => {
    const total = Object.values(e.stages).reduce((a, t) => a + t, 0);
    return {
      label: e.name,
      segments: STAGES.filter((s) => e.stages[s]).map((s) => ({ value: e.stages[s], colour: stageColour(s), title: `${e.name} ${s}: ${ms(e.stages[s])}` })),
      valueText: `${ms(total)}${e.status === 'hit' ? ' (cached)' : ''}`,
    };
  });
  return `${legend(used.map((s) => ({ colour: stageColour(s), name: s })))}${barChart(bars, 'time per entry and stage')}`;
}

function memoryTable(m: MemoryBytes): string {
  const rows = m.arrays.map((a) => `<tr><td>${escapeXml(a.name)}</td><td>${escapeXml(a.role)}</td><td>${memoryKind(a)}</td><td>${a.shape ? a.shape.join('×') : '?'}</td><td class="num">${a.bytes ?? 'unknown'}</td></tr>`);
  return `<table><thead><tr><th>array</th><th>role</th><th>memory</th><th>shape</th><th>bytes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function memorySection(data: ReportData): string {
  const parts = [legend(Object.entries(MEMORY_COLOURS).map(([name, colour]) => ({ colour, name: name === 'tile' ? 'per tile (each thread)' : name === 'argument' ? "argument (the caller's)" : name === 'pooled' ? 'pooled (in an arena)' : 'unpooled (allocated alone)' })))];
  for (const e of data.entries) {
    parts.push(`<h3>${escapeXml(e.name)}</h3>`);
    const m = e.memory;
    if (!m) {
      parts.push('<p class="note">no memory report in this entry</p>');
      continue;
    }
    const bars: Bar[] = m.arrays.map((a) => ({
      label: a.name,
      segments: [{ value: a.bytes ?? 0, colour: MEMORY_COLOURS[memoryKind(a)], title: `${a.name}: ${a.bytes ?? 'unknown'} bytes` }],
      valueText: `${bytes(a.bytes)}${a.tile ? ' per tile' : ''}`,
    }));
    const t = m.totals;
    parts.push(barChart(bars, `memory per array of ${e.name}`));
    parts.push(
      `<p>The caller's arguments ${bytes(t.argBytes)}; orch allocates ${bytes(t.orchBytes)}: temporary arena ${bytes(t.temporaryArenaBytes)}, transient arena ${bytes(t.transientArenaBytes)}, unpooled ${bytes(t.unpooledBytes)}. In all ${bytes(t.totalBytes)}.</p>`,
    );
    parts.push(memoryTable(m));
  }
  return parts.join('\n');
}

const CSS = `body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;background:#fff;max-width:960px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}h3{font-size:15px;margin:18px 0 4px}
svg text{font:12px system-ui,sans-serif;fill:#222}.meta,.note{color:#555}.legend span{margin-right:14px;white-space:nowrap}
.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}
table{border-collapse:collapse;margin:6px 0 12px}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}.num{text-align:right;font-variant-numeric:tabular-nums}`;

/** One self-contained page: inline CSS and SVG, no script, nothing fetched. */
export function htmlReport(data: ReportData): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>orch build report</title><style>${CSS}</style></head>
<body>
<h1>orch build report</h1>
<p class="meta">${escapeXml(data.created)} · preset ${escapeXml(data.preset)} · ${data.entries.length} entries · memory for a domain of ${data.domain.join('×')}</p>
<h2>Where the build time went: per pass</h2>
${passSection(data)}
<h2>Where the build time went: per entry</h2>
${entrySection(data)}
<h2>Where the memory goes (domain ${data.domain.join('×')})</h2>
${memorySection(data)}
</body></html>
`;
}
