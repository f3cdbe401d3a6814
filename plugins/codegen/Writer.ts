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
  /** Placeholder for `#line <next line> "<generated file>"`, filled in by `text`. */
  reset(): void {
    this.lines.push(null);
  }
  text(fileName: string): string {
    const file = cString(fileName);
    return `${this.lines.map((l, idx) => l ?? `#line ${idx + 2} ${file}`).join('\n')}\n`;
  }
}
