/**
 * The innermost bracket still open at `end` (an offset in `source`), skipping strings and
 * comments; null when every bracket before `end` is closed. A parser that recovers from a
 * missing `)` only fails lines later, where the next statement cannot continue the
 * expression; CPython then reports "'(' was never closed" at the bracket, and so does orch.
 */
export function unclosedBracket(source: string, end: number): { offset: number; char: string } | null {
  const open: number[] = [];
  let i = 0;
  while (i < end) {
    const c = source[i];
    if (c === '#') {
      while (i < end && source[i] !== '\n') i++;
    } else if (c === '"' || c === "'") {
      const quote = source.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      i += quote.length;
      while (i < end && !source.startsWith(quote, i)) {
        // a single-quoted string ends at the line's end even when unterminated
        if (quote.length === 1 && source[i] === '\n') break;
        i += source[i] === '\\' ? 2 : 1;
      }
      i += quote.length - 1;
    } else if (c === '(' || c === '[' || c === '{') open.push(i);
    else if ((c === ')' || c === ']' || c === '}') && open.length) open.pop();
    i++;
  }
  const at = open.at(-1);
  return at === undefined ? null : { offset: at, char: source[at] };
}
