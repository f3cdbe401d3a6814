import type { Program } from '../ir/types.js';
import type { Boundary } from '../layout/HaloTopology.js';
import type { RankLayout } from '../layout/RankLayout.js';
import { HaloExchange } from './HaloExchange.js';
import { Interpreter, type ArgValue, type InterpreterOptions } from './Interpreter.js';
import { ranksFinishedDuringExchange } from '../diagnostics/haloErrors.js';

/**
 * A multi-rank run in one process: one interpreter per rank (each with its code path's
 * program), advanced in lockstep from one halo exchange to the next. It is the oracle of
 * an MPI run: the same numbers, with no MPI.
 */
export function simulateRanks(
  programs: Program[],
  args: Record<string, ArgValue>[],
  layout: RankLayout,
  boundary: Boundary,
  options: Omit<InterpreterOptions, 'boundary'> = {},
): void {
  if (programs.length !== args.length) throw new Error(`simulateRanks: ${programs.length} programs for ${args.length} ranks`);
  const exchange = new HaloExchange(layout, boundary);
  const runs = programs.map((p, rank) => new Interpreter(p, options).steps(args[rank]));
  for (;;) {
    const results = runs.map((r) => r.next());
    const done = results.filter((r) => r.done).length;
    if (done === results.length) return;
    if (done) {
      const waiting = results.find((r) => !r.done)!.value!;
      throw ranksFinishedDuringExchange(done, results.length, waiting.stmt.loc);
    }
    exchange.step(results.map((r) => r.value!));
  }
}
