import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs every compiled *.test.js with uvu and prints the totals as the last line,
 * `N passed, M failed`, which CI reads (uvu's own summary has another shape).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pattern = process.argv[2] ?? '\\.test\\.js$';
const child = spawn(process.execPath, [path.join(root, 'node_modules/uvu/bin.js'), 'dist', pattern, '-c', 'false'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout.on('data', (d: Buffer) => {
  out += d.toString();
  process.stdout.write(d);
});
child.on('close', (code) => {
  const num = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(out)?.[1] ?? NaN);
  const total = num('Total');
  const passed = num('Passed');
  const failed = Number.isNaN(total) ? 1 : total - passed;
  const okPassed = Number.isNaN(passed) ? 0 : passed;
  process.stdout.write(`\n${okPassed} passed, ${failed} failed\n`);
  process.exit(code === 0 && failed === 0 ? 0 : 1);
});
