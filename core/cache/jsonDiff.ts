/**
 * Where two JSON values differ, as `path: before -> after` (at most `limit` paths), so a
 * cache miss on a structured input (an orchestrated component's closure) names what changed.
 */
export function jsonDifferences(before: unknown, after: unknown, limit = 3): string[] {
  const out: string[] = [];
  const short = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v).slice(0, 60));
  const walk = (a: unknown, b: unknown, path: string) => {
    if (out.length >= limit || JSON.stringify(a) === JSON.stringify(b)) return;
    const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
    if (obj(a) && obj(b)) {
      for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) walk(a[k], b[k], path ? `${path}.${k}`.replace('.[', '[').replace('..', '.') : k);
      return;
    }
    out.push(`${path || 'value'}: ${short(a)} -> ${short(b)}`);
  };
  walk(before, after, '');
  return out;
}
