import type { Codegen } from './Codegen.js';
import { CTYPE } from './cText.js';

/**
 * Local copies of the scalars a threaded region reads. The region is a lambda capturing by
 * value, so a scalar is a member of the closure, which lives in memory: g++ cannot tell a
 * store through an array pointer from a store to it, so it reloaded the scalar, and redid
 * the arithmetic on it, at every point (the dycore's `dt / n_split * rdx`: a divide per
 * vector of every statement using it; 290M -> 266M instructions a call, callgrind, cpu
 * preset). A copy in a local whose address is never taken is known not to change, so the
 * arithmetic leaves the loops. Same values, same operations: results are bitwise the same.
 */
export class RegionScalars {
  private copies: Map<string, string> | undefined;
  private mark: { at: number; depth: number } | undefined;

  constructor(private readonly cg: Codegen) {}

  /** Right after the region's lambda opens: from here, scalar reads use copies made at this point. */
  open(): void {
    this.copies = new Map();
    this.mark = this.cg.w.mark();
  }

  /** The name a read of scalar `name` uses here (its copy inside a region). */
  ref(name: string): string {
    const global = this.cg.ids.scalar(name);
    if (!this.copies) return global;
    let copy = this.copies.get(name);
    if (copy === undefined) {
      copy = this.cg.ids.local(`scalar ${name}`);
      this.copies.set(name, copy);
    }
    return copy;
  }

  /** Before the region's lambda closes: the copies the region read, declared where it opened. */
  close(): void {
    if (!this.copies || !this.mark) return;
    const decls = [...this.copies].map(([name, copy]) => `const ${CTYPE[this.cg.scalars.get(name)!.dtype]} ${copy} = ${this.cg.ids.scalar(name)};`);
    this.cg.w.insertAt(this.mark, decls);
    this.copies = this.mark = undefined;
  }
}
