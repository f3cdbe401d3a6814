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
const g = globalThis as { UVU_DEFER?: number; UVU_QUEUE?: unknown[][] };
g.UVU_DEFER = 1;
const uvu = await import('uvu');
// no suite name: test/run.ts heads each file's block with its path
g.UVU_QUEUE!.push([null]);
await import(pathToFileURL(path.resolve(file)).href);
await uvu.exec();
