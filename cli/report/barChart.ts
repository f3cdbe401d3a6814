/** Horizontal bar charts as inline SVG: no script, no fonts or images to fetch. */

export interface Segment {
  value: number;
  colour: string;
  /** Shown as the segment's tooltip (an SVG <title>). */
  title: string;
}

export interface Bar {
  label: string;
  segments: Segment[];
  /** The number printed after the bar. */
  valueText: string;
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const ROW = 22;
const LABEL_W = 300;
const BAR_W = 480;
const VALUE_W = 140;

/** One row per bar, its segments stacked left to right, scaled to the largest bar. */
export function barChart(bars: Bar[], ariaLabel: string): string {
  const max = Math.max(...bars.map((b) => b.segments.reduce((a, s) => a + s.value, 0)), 0);
  const height = bars.length * ROW + 8;
  const width = LABEL_W + BAR_W + VALUE_W;
  const rows = bars.map((b, i) => {
    const y = 4 + i * ROW;
    let x = LABEL_W;
    const rects = b.segments.map((s) => {
      // a value too small to see still gets a sliver, so every pass and array shows
      const w = max > 0 ? Math.max(s.value > 0 ? 1 : 0, (s.value / max) * BAR_W) : 0;
      const r = `<rect x="${x.toFixed(1)}" y="${y + 3}" width="${w.toFixed(1)}" height="${ROW - 6}" fill="${s.colour}"><title>${escapeXml(s.title)}</title></rect>`;
      x += w;
      return r;
    });
    const label = b.label.length > 44 ? `…${b.label.slice(-43)}` : b.label;
    return [
      `<text x="${LABEL_W - 8}" y="${y + ROW / 2 + 4}" text-anchor="end">${escapeXml(label)}<title>${escapeXml(b.label)}</title></text>`,
      ...rects,
      `<text x="${(x + 6).toFixed(1)}" y="${y + ROW / 2 + 4}">${escapeXml(b.valueText)}</text>`,
    ].join('');
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeXml(ariaLabel)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${rows.join('\n')}</svg>`;
}

/** Colour swatches with names, for the stacked charts. */
export function legend(items: { colour: string; name: string }[]): string {
  return `<p class="legend">${items.map((i) => `<span><i style="background:${i.colour}"></i>${escapeXml(i.name)}</span>`).join(' ')}</p>`;
}
