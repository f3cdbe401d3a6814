import { allocate } from '../core/runtime/ndarray.js';
import { NativeLibrary } from '../core/runtime/NativeLibrary.js';

/**
 * One rank of `npm run bench:mpi` (started by mpirun from bench/mpiHalo.ts): runs one
 * program of fixtures/bench/halo_exchange.py on local arrays of n x n x nz compute points
 * (halo 3), once to start MPI, then `reps` times, and prints its median call time.
 *
 *   node dist/bench/mpiRank.js LIBRARY SYMBOL N NZ REPS
 */
const [library, symbol, n, nz, reps] = process.argv.slice(2);
const size = Number(n) + 6;
const lib = NativeLibrary.open(library, symbol);
const field = (seed: number) => {
  const a = allocate('float64', [size, size, Number(nz)]);
  const d = a.data as Float64Array;
  for (let i = 0; i < d.length; i++) d[i] = ((i * 7 + seed) % 13) / 13;
  return a;
};
const params = new Set(lib.signature.params.map((p) => p.name));
const args = Object.fromEntries(Object.entries({ q: field(1), s: field(2), rate: 0.01 }).filter(([k]) => params.has(k)));
lib.bind(args);
lib.run();
const times: number[] = [];
for (let r = 0; r < Number(reps); r++) {
  const t = process.hrtime.bigint();
  lib.run();
  times.push(Number(process.hrtime.bigint() - t) / 1e9);
}
times.sort((a, b) => a - b);
process.stdout.write(`${JSON.stringify({ rank: Number(process.env.OMPI_COMM_WORLD_RANK ?? 0), median: times[Math.floor(times.length / 2)], min: times[0] })}\n`);
lib.close();
