/**
 * C++ identifiers for user names. User names only ever appear behind these prefixes;
 * generated locals use other names (st, args, i, j, k, dom0, ilo0, ...), so nothing can
 * collide. Within a prefix, names are readable when possible and never collide either.
 */
export class Identifiers {
  private readonly used = new Set<string>();
  private readonly ids = new Map<string, string>();

  private id(space: 'array' | 'scalar' | 'local', name: string): string {
    const key = `${space}:${name}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      const base = name.replace(/[^A-Za-z0-9_]/g, '_') || '_';
      id = base;
      for (let n = 2; this.used.has(`${space}:${id}`); n++) id = `${base}_${n}`;
      this.used.add(`${space}:${id}`);
      this.ids.set(key, id);
    }
    return id;
  }

  /** The `orch_array` view of array `name`. */
  view(name: string): string {
    return `A_${this.id('array', name)}`;
  }
  /** The base pointer of array `name`, shifted to its origin. */
  ptr(name: string): string {
    return `p_${this.id('array', name)}`;
  }
  stride(name: string, pos: number): string {
    return `s${pos}_${this.id('array', name)}`;
  }
  /** The K indices array `name` holds, relative to its origin, for reads at variable K offsets. */
  kLimit(name: string, end: 'lo' | 'hi'): string {
    return `k${end}_${this.id('array', name)}`;
  }
  /** A kernel parameter holding the origin of array `name` along its axis `pos` (CUDA). */
  originParam(name: string, pos: number): string {
    return `o${pos}_${this.id('array', name)}`;
  }
  /** The RAII owner of a temporary's or transient's storage. */
  buffer(name: string): string {
    return `B_${this.id('array', name)}`;
  }
  scalar(name: string): string {
    return `v_${this.id('scalar', name)}`;
  }
  /** A point-local scalar of a loop nest (or a tile-local array's bookkeeping). */
  local(name: string): string {
    return `l_${this.id('local', name)}`;
  }
}
