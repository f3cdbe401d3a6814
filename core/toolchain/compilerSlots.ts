import { availableParallelism } from 'node:os';

/**
 * At most one compiler process per core across every build of this process: the code
 * paths of a layout build (up to nine compilers, each building its entries in parallel)
 * share the machine instead of oversubscribing it.
 */
class CompilerSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/** $ORCH_COMPILE_JOBS raises it where compilations run elsewhere (compiler.launcher: distcc). */
function slots(): number {
  const jobs = Number(process.env.ORCH_COMPILE_JOBS);
  return Number.isInteger(jobs) && jobs > 0 ? jobs : Math.max(1, availableParallelism());
}

export const compilerSlots = new CompilerSlots(slots());
