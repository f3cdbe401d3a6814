import { cString } from './cText.js';

/** Collects lines, indents them, and resolves `#line` resets to the generated file's own lines. */
export class Writer {
  private readonly lines: Array<string | null> = [];
  private depth = 0;

  line(text: string): void {
    this.lines.push(text ? '  '.repeat(this.depth) + text : '');
  }
  /** Preprocessor lines start in column 0. */
  directive(text: string): void {
    this.lines.push(text);
  }
  open(text: string): void {
    this.line(text);
    this.depth++;
  }
  close(text = '}'): void {
    this.depth--;
    this.line(text);
  }
  /** `} else {`: closes one block and opens the next at the same depth. */
  reopen(text: string): void {
    this.close(text);
    this.depth++;
  }
  /** Where lines may be inserted later (insertAt), at the current indentation. */
  mark(): { at: number; depth: number } {
    return { at: this.lines.length, depth: this.depth };
  }
  /** Inserts lines at `m` (a mark taken after every line emitted since, nothing inserted before it). */
  insertAt(m: { at: number; depth: number }, texts: string[]): void {
    this.lines.splice(m.at, 0, ...texts.map((t) => '  '.repeat(m.depth) + t));
  }
  /** Placeholder for `#line <next line> "<generated file>"`, filled in by `text`. */
  reset(): void {
    this.lines.push(null);
  }
  text(fileName: string): string {
    const file = cString(fileName);
    return `${this.lines.map((l, idx) => l ?? `#line ${idx + 2} ${file}`).join('\n')}\n`;
  }
}
