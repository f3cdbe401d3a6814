import { mkdtempSync, writeFileSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

/**
 * `npm run bench:mpi`: the compiled halo exchange under mpirun on this machine (ranks
 * oversubscribe its cores, so the figures are what 2 cores give, not a network's).
 *
 *   - time per exchange (halo_update of one field, width 3, 8 neighbours on a periodic
 *     tile) against the bytes each rank sends, for 1, 4 and 9 ranks;
 *   - an interior stencil with the exchange before it (`sequential`) and with
 *     halo_update_start/wait around it (`overlapped`).
 *
 * One build serves every layout and size: these programs use no regions, and the library
 * reads the layout at run time ($ORCH_LAYOUT) and the sizes from its arrays.
 *
 * `--packed` builds the exchange's other variant (-DORCH_HALO_PACK: a blocking halo_update
 * packed into buffers, as start/wait are) to compare with the default, in place through
 * MPI derived datatypes.
 *
 *   node dist/bench/mpiHalo.js [--quick] [--packed]
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const quick = process.argv.includes('--quick');
const packed = process.argv.includes('--packed');
const work = mkdtempSync(path.join(os.tmpdir(), 'orch-bench-mpi-'));
const N_ITER = 20;
const NZ = 32;
const WIDTH = 3;

copyFileSync(path.join(repo, 'fixtures/bench/halo_exchange.py'), path.join(work, 'halo_exchange.py'));
writeFileSync(path.join(work, 'orch.config.ts'), `export default { compiler: { mpi: true${packed ? ", extraFlags: ['-DORCH_HALO_PACK']" : ''} } };\n`);
const orch = (args: string[]) => execa(process.execPath, [path.join(repo, 'dist/bin/orch.js'), ...args], { cwd: work, env: { GT_CACHE_ROOT: work }, all: true });

const built = JSON.parse(String((await orch(['build', 'halo_exchange.py', '--define', `n_iter=${N_ITER}`, '--json'])).stdout)) as { entries: { entry: string; library: string; symbol: string; status: string }[] };
const lib = (entry: string) => {
  const e = built.entries.find((x) => x.entry === entry);
  if (!e?.library) throw new Error(`${entry} did not build: ${JSON.stringify(e)}`);
  return e;
};

async function perCall(entry: string, layout: number, n: number, reps: number): Promise<number> {
  const e = lib(entry);
  const r = await execa('mpirun', ['--oversubscribe', '--allow-run-as-root', '--bind-to', 'none', '-np', String(layout * layout), process.execPath, path.join(here, 'mpiRank.js'), e.library, e.symbol, String(n), String(NZ), String(reps)], {
    cwd: work,
    // one thread per rank: OpenMP threads of oversubscribed ranks would spin against each other
    env: { ORCH_LAYOUT: `${layout}x${layout}`, ORCH_BOUNDARY: 'periodic', OMP_NUM_THREADS: '1' },
    all: true,
  });
  const lines = String(r.stdout).trim().split('\n').map((l) => JSON.parse(l) as { median: number });
  // the slowest rank sets the pace of a step
  return Math.max(...lines.map((l) => l.median)) / N_ITER;
}

const sentBytes = (n: number) => (4 * WIDTH * n + 4 * WIDTH * WIDTH) * NZ * 8;
const sizes = quick ? [24, 96] : [24, 48, 96, 192];
const layouts = [1, 2, 3];
console.log(`halo exchange (${packed ? 'packed' : 'in place, derived datatypes'}) of one float64 field, width ${WIDTH}, ${NZ} levels, periodic tile, ${os.cpus().length} cores (ranks oversubscribed, 1 thread each), load average ${os.loadavg()[0].toFixed(1)}`);
console.log('ranks  rank domain  bytes sent/rank  time/exchange   bandwidth/rank');
for (const l of layouts) {
  for (const n of sizes) {
    const t = await perCall('exchange', l, n, quick ? 5 : 15);
    const bytes = sentBytes(n);
    console.log(`${String(l * l).padStart(5)}  ${`${n}x${n}x${NZ}`.padStart(11)}  ${`${(bytes / 1024).toFixed(1)} KiB`.padStart(15)}  ${`${(t * 1e6).toFixed(1)} us`.padStart(13)}  ${`${(bytes / t / 1e9).toFixed(2)} GB/s`.padStart(15)}`);
  }
}
console.log('');
console.log('an interior stencil with the exchange: before it (sequential) vs start/wait around it (overlapped)');
console.log('ranks  rank domain  exchange alone  sequential  overlapped  hidden');
const n = quick ? 96 : 192;
for (const l of layouts) {
  const ex = await perCall('exchange', l, n, quick ? 5 : 15);
  const seq = await perCall('sequential', l, n, quick ? 5 : 15);
  const ovl = await perCall('overlapped', l, n, quick ? 5 : 15);
  const hidden = ex > 0 ? Math.max(0, Math.min(1, (seq - ovl) / ex)) : 0;
  const us = (x: number) => `${(x * 1e6).toFixed(1)} us`;
  console.log(`${String(l * l).padStart(5)}  ${`${n}x${n}x${NZ}`.padStart(11)}  ${us(ex).padStart(14)}  ${us(seq).padStart(10)}  ${us(ovl).padStart(10)}  ${`${(hidden * 100).toFixed(0)}%`.padStart(6)}`);
}
