import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ORCH_BIN } from './TempProject.js';

/** Usage errors: the whole message, exit 2, and a did-you-mean for a misspelt command or option. */

const usage = suite('cli usage');

async function orch(args: string[]) {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'orch-usage-'));
  const r = await execa(process.execPath, [ORCH_BIN, ...args], { cwd, reject: false, env: { NO_COLOR: '1' } });
  return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

usage('a misspelt command suggests the command', async () => {
  const r = await orch(['biuld']);
  assert.is(r.code, 2);
  assert.fixture(r.stderr, "orch: unknown command 'biuld'\nhint: did you mean 'orch build'?\nRun 'orch --help' for usage.");
});

usage("a misspelt option suggests the command's option", async () => {
  const r = await orch(['run', 'm.py:s', '--scalar', '{}']);
  assert.is(r.code, 2);
  assert.fixture(r.stderr, "orch: unknown option --scalar\nhint: did you mean --scalars?\nRun 'orch --help' for usage.");
  const two = await orch(['build', '--wach', '--timepasses']);
  assert.is(two.code, 2);
  assert.fixture(two.stderr, "orch: unknown options --wach, --timepasses\nhint: did you mean --watch (for --wach)?\nhint: did you mean --time-passes (for --timepasses)?\nRun 'orch --help' for usage.");
  const none = await orch(['build', '--zzzz']);
  assert.fixture(none.stderr, "orch: unknown option --zzzz\nRun 'orch --help' for usage.");
});

usage('--version prints the package version', async () => {
  const r = await orch(['--version']);
  assert.is(r.code, 0);
  assert.match(r.stdout, /^\d+\.\d+\.\d+$/);
});

usage('--help has examples and option groups; completion prints a script and completes commands and options', async () => {
  const help = await orch(['--help']);
  assert.is(help.code, 0);
  assert.match(help.stdout, /Examples:\n  orch build smooth\.py +build the stencils and programs of/);
  assert.match(help.stdout, /orch completion +print a shell completion script/);
  const build = await orch(['build', '--help']);
  assert.match(build.stdout, /Rank layout:\n +--layout .*\n.*\n +--rank .*\n +--rank-domain .*\n +--halo /);
  assert.match(build.stdout, /Inspecting the pipeline:\n +--print-ir-after/);
  const run = await orch(['run', '--help']);
  assert.match(run.stdout, /Arguments of the call:\n +--domain/);
  const script = await orch(['completion']);
  assert.match(script.stdout, '###-begin-orch-completions-###');
  const commands = await orch(['--get-yargs-completions', 'orch', 'bu']);
  assert.ok(commands.stdout.split('\n').includes('build'), commands.stdout);
  const options = await orch(['--get-yargs-completions', 'orch', 'build', '--']);
  assert.ok(options.stdout.split('\n').includes('--watch') && options.stdout.split('\n').includes('--time-passes'), options.stdout);
});

usage.run();
