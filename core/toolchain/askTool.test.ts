import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { askTool } from './askTool.js';
import { compilerIdentity } from './gxx.js';
import { OrchError } from '../diagnostics.js';

test('an answer comes back without its final newline', async () => {
  const r = await askTool(process.execPath, ['-e', 'process.stdout.write("one\\ntwo\\n"); process.stderr.write("warn\\n")']);
  assert.equal({ stdout: r.stdout, stderr: r.stderr, failed: r.failed }, { stdout: 'one\ntwo', stderr: 'warn', failed: false });
});

test('a tool that exits nonzero, is missing or hangs fails, saying why as execa does', async () => {
  const exit = await askTool(process.execPath, ['-e', 'process.stderr.write("bad flag\\n"); process.exit(3)']);
  assert.ok(exit.failed);
  assert.is(exit.stderr, 'bad flag');
  assert.is(exit.shortMessage, `Command failed with exit code 3: ${process.execPath} -e process.stderr.write("bad flag\\n"); process.exit(3)`);
  const missing = await askTool('orch-no-such-tool', ['--version']);
  assert.equal({ failed: missing.failed, code: missing.code, shortMessage: missing.shortMessage }, { failed: true, code: 'ENOENT', shortMessage: 'Command failed with ENOENT: orch-no-such-tool --version' });
  const hung = await askTool(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { timeoutMs: 200 });
  assert.ok(hung.failed);
  assert.match(hung.shortMessage, /^Command timed out after 200 milliseconds: /);
});

test('the compiler identity is the first line of --version; a missing compiler is a toolchain error', async () => {
  assert.match(await compilerIdentity('g++'), /^g\+\+ /);
  const e = await compilerIdentity('orch-no-such-compiler').then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.ok(e instanceof OrchError && e.diagnostic.code === 'E_TOOLCHAIN', String(e));
  assert.match((e as OrchError).diagnostic.message, "C++ compiler 'orch-no-such-compiler' was not found");
});

test.run();
