import type { SourceLoc } from './types.js';
import { irParseError, irUnexpectedCharacter } from '../diagnostics/configErrors.js';

/**
 * Tokens of the IR's text form (core/ir/print.ts), for core/ir/parse.ts. A `Tokens`
 * cursor reports malformed text as an E_IR_PARSE diagnostic at the offending token.
 */
interface Token {
  kind: 'ident' | 'number' | 'string' | 'punct' | 'eof';
  text: string;
  line: number;
  col: number;
  /** whitespace (or the start of the text) comes right before this token */
  spaced: boolean;
}

// longest first, so `//` wins over `/` and `->` over `-`
const PUNCT = ['**', '//', '<=', '>=', '==', '!=', '->', '(', ')', '[', ']', '{', '}', ',', ':', '=', '|', '<', '>', '+', '-', '*', '/', '%', '.', '#'];

export function lex(text: string, file: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let col = 1;
  let spaced = true;
  const advance = (n: number) => {
    for (let k = 0; k < n; k++) {
      if (text[i] === '\n') {
        line++;
        col = 1;
      } else col++;
      i++;
    }
  };
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      advance(1);
      spaced = true;
      continue;
    }
    const rest = text.slice(i);
    let m: RegExpMatchArray | null;
    let kind: Token['kind'];
    if ((m = rest.match(/^[A-Za-z_][A-Za-z0-9_]*/))) kind = 'ident';
    else if ((m = rest.match(/^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?f?/))) kind = 'number';
    else if ((m = rest.match(/^"(?:[^"\\\n]|\\.)*"/))) kind = 'string';
    else {
      const p = PUNCT.find((x) => rest.startsWith(x));
      if (!p) throw irUnexpectedCharacter(c, { file, line, col });
      m = [p] as unknown as RegExpMatchArray;
      kind = 'punct';
    }
    out.push({ kind, text: m[0], line, col, spaced });
    advance(m[0].length);
    spaced = false;
  }
  out.push({ kind: 'eof', text: '<end of text>', line, col, spaced: true });
  return out;
}

/** A cursor over the tokens of one IR text. */
export class Tokens {
  private pos = 0;
  constructor(
    private readonly toks: Token[],
    readonly file: string,
  ) {}

  /** Position, to come back to with `seek`. */
  save(): number {
    return this.pos;
  }

  seek(pos: number): void {
    this.pos = pos;
  }

  /** Skips the rest of the current line. */
  skipLine(): void {
    const line = this.peek().line;
    while (this.peek().kind !== 'eof' && this.peek().line === line) this.pos++;
  }

  peek(ahead = 0): Token {
    return this.toks[Math.min(this.pos + ahead, this.toks.length - 1)];
  }

  next(): Token {
    const t = this.peek();
    if (this.pos < this.toks.length - 1) this.pos++;
    return t;
  }

  loc(t: Token = this.peek()): SourceLoc {
    return { file: this.file, line: t.line, col: t.col };
  }

  /** Whether the next token is `text` (a keyword or punctuation). */
  is(text: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return (t.kind === 'ident' || t.kind === 'punct') && t.text === text;
  }

  /** Consumes `text` if it comes next. */
  eat(text: string): boolean {
    if (!this.is(text)) return false;
    this.next();
    return true;
  }

  expect(text: string): Token {
    if (!this.is(text)) this.error(`expected '${text}', found '${this.peek().text}'`);
    return this.next();
  }

  ident(what = 'a name'): string {
    const t = this.peek();
    if (t.kind !== 'ident') this.error(`expected ${what}, found '${t.text}'`);
    return this.next().text;
  }

  int(): number {
    const neg = this.eat('-');
    const t = this.peek();
    if (t.kind !== 'number' || !/^[0-9]+$/.test(t.text)) this.error(`expected an integer, found '${t.text}'`);
    this.next();
    return neg ? -Number(t.text) : Number(t.text);
  }

  error(message: string, t: Token = this.peek()): never {
    throw irParseError(message, this.loc(t), Math.max(1, t.text.length));
  }
}
