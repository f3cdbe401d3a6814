import type { PyExpr } from '../../core/python/ast.js';

/** `self.a["k"][0]` as written, for messages. */
export function chainText(e: PyExpr): string {
  if (e.t === 'name') return e.id;
  if (e.t === 'attr') return `${chainText(e.value)}.${e.attr}`;
  if (e.t === 'subscript') return `${chainText(e.value)}[${e.index.map((i) => (i.t === 'str' ? JSON.stringify(i.value) : i.t === 'num' ? String(i.value) : '...')).join(', ')}]`;
  return '...';
}
