import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Runs one compiled test file with uvu, in this process, exactly as `uvu dist <pattern>` runs
 * each of its files: queue the file's suites (UVU_DEFER), then run them and print uvu's
 * summary (`Total:`, `Passed:`). test/run.ts starts one of these per test file.
 * Usage: node dist/test/runFile.js <file.test.js>
 */
const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node dist/test/runFile.js <file.test.js>\n');
  process.exit(2);
}
// the CPU seconds of this file and every process it waited for (g++, python, orch ...), for
// the runner's report: on a shared machine they say more than the wall time
const cpuOut = process.env.ORCH_TEST_CPU_OUT;
if (cpuOut) {
  process.on('exit', () => {
    try {
      const stat = readFileSync('/proc/self/stat', 'utf8');
      // fields after the command name: state is field 3; utime, stime, cutime, cstime are 14-17
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      writeFileSync(cpuOut, String(ticks / 100));
    } catch {
      // no /proc (not Linux): no CPU figure
    }
  });
}
const g = globalThis as { UVU_DEFER?: number; UVU_QUEUE?: unknown[][] };
g.UVU_DEFER = 1;
const uvu = await import('uvu');
// no suite name: test/run.ts heads each file's block with its path
g.UVU_QUEUE!.push([null]);
await import(pathToFileURL(path.resolve(file)).href);
await uvu.exec();
