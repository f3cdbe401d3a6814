import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * Python mode without GT4Py: stencil calls go to one long-lived `orch serve` per Python
 * process, fields as raw bytes over its pipes (python/orch/interpreter.py,
 * cli/serveFrames.ts). Cases in test/python/interpreter_transport.py check every field
 * against numpy; the speed is measured by `npm run bench:python`, not here.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const orchJs = path.join(repo, 'dist/bin/orch.js');

async function transport(kase: string, extra: string[] = [], env: Record<string, string> = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `orch-py-serve-${kase}-`));
  const r = await execa('python3', [path.join(repo, 'test/python/interpreter_transport.py'), kase, dir, ...extra], {
    cwd: dir,
    reject: false,
    // a transport that loses a frame hangs both sides: fail instead
    timeout: 300_000,
    env: { PYTHONPATH: path.join(repo, 'python'), ORCH_MODE: 'python', GT_CACHE_ROOT: dir, ORCH_CLI: orchJs, ...env },
  });
  return { dir, code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

const t = suite('python mode transport');

t('in, out and inout fields of five dtypes, scalars of three, non-contiguous and read-only arrays, many calls', async () => {
  const r = await transport('kinds', ['12']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ok 12 calls/m);
});

t('two Python processes at once, each with its own serve process, get their own results', async () => {
  const [a, b] = await Promise.all([transport('kinds', ['15']), transport('kinds', ['15'])]);
  assert.is(a.code, 0, a.stderr);
  assert.is(b.code, 0, b.stderr);
  const pid = (s: string) => /pid (\d+)/.exec(s)?.[1];
  assert.ok(pid(a.stdout) && pid(b.stdout) && pid(a.stdout) !== pid(b.stdout), `${a.stdout} / ${b.stdout}`);
});

t('threads of one process share its serve process', async () => {
  const r = await transport('threads');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ok 4 threads x 5 calls$/m);
});

t("a forked child starts its own serve process and leaves its parent's alone", async () => {
  const r = await transport('fork');
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /^ok parent and forked child each had their own$/m);
});

t('a KeyboardInterrupt mid-call (Jupyter interrupts only Python) leaves no stale answer for the next call', async () => {
  const r = await transport('interrupt');
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /^ok the call after the interrupt got its own answer$/m);
});

t('a serve process that dies mid-call gives a clean OrchError, and the next call starts a new one', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-py-serve-stand-in-'));
  const standIn = path.join(dir, 'orch');
  // the first start reads part of a request and dies; later starts are the real orch
  writeFileSync(
    standIn,
    `#!/usr/bin/env python3
import os, sys
marker = os.path.join(${JSON.stringify(dir)}, "crashed")
if not os.path.exists(marker):
    open(marker, "w").close()
    sys.stdin.buffer.read(20)
    sys.stderr.write("stand-in: dying mid-call\\n")
    sys.exit(3)
os.execv(${JSON.stringify(process.execPath)}, [${JSON.stringify(process.execPath)}, ${JSON.stringify(orchJs)}, *sys.argv[1:]])
`,
  );
  chmodSync(standIn, 0o755);
  const r = await transport('crash', [], { ORCH_CLI: standIn });
  assert.is(r.code, 0, r.stderr);
  assert.ok(!/Traceback/.test(r.stdout + r.stderr), r.stderr);
  assert.match(r.stderr, /stand-in: dying mid-call/);
  const error = /^error: (.*)$/m.exec(r.stdout)?.[1] ?? '';
  assert.match(error, /^orch's interpreter \(orch serve\) stopped while running .*kinds\.py:mixed \(exit status 3; /);
  assert.match(error, /its messages are above\. The next call starts a new one\.$/);
  assert.match(r.stdout, /^ok after the crash$/m);
});

t('the lowered stencil is kept between calls, but an edit of a module it imports is seen', async () => {
  const r = await transport('stale');
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /^ok the edited import was seen$/m);
});

t('errors come back as OrchError and the same serve process answers the next call', async () => {
  const r = await transport('errors');
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /^refused: .*float16/m);
  assert.match(r.stdout, /^error: orch could not lower .*broken\.py:uses_missing:\n.*E_UNKNOWN_NAME: name 'MISSING_SCALE' is not defined/m);
  assert.match(r.stdout, /^refused at decoration: E_SELF_ASSIGN_OFFSET$/m);
  assert.match(r.stdout, /^refused at decoration: E_NOT_GTSCRIPT_FUNCTION$/m);
  assert.match(r.stdout, /^refused at decoration: E_INTERVAL$/m);
  assert.match(r.stdout, /^lazy_stencil refused at its first call$/m);
  assert.match(r.stdout, /E_DOMAIN_FIT|domain \(9, 4, 2\)/);
  assert.match(r.stdout, /^ok one serve process answered the errors and the next call$/m);
});

t('orch serve refuses bytes that are not a frame (an older package), naming the mismatch', async () => {
  const r = await execa(process.execPath, [orchJs, 'serve'], { input: '{"id": 1, "target": "m.py:s"}\n', reject: false, env: { NO_COLOR: '1' } });
  assert.is(r.exitCode, 1);
  assert.is(String(r.stdout), '');
  assert.match(String(r.stderr), /^error E_SERVE_PROTOCOL: orch serve: a request starts with "\{\\"id", not "ORCH"$/m);
  assert.match(String(r.stderr), /^hint: orch serve reads frames from the orch Python package of the same version; update the one that is older$/m);
});

t('orch serve: a request cut off by its host dying ends it quietly; a header that is not JSON is E_SERVE_PROTOCOL', async () => {
  const frame = (header: string, extra = '') => {
    const head = Buffer.alloc(8);
    head.write('ORCH', 'latin1');
    head.writeUInt32LE(Buffer.byteLength(header), 4);
    return Buffer.concat([head, Buffer.from(header + extra)]);
  };
  // the header promises 40 bytes of arrays; 3 arrive, then the stream ends
  const cut = await execa(process.execPath, [orchJs, 'serve'], {
    input: frame(JSON.stringify({ id: 1, target: 'm.py:s', arrays: [{ name: 'q', dtype: 'float64', shape: [5], nbytes: 40 }] }), 'abc'),
    reject: false,
  });
  assert.is(cut.exitCode, 0, String(cut.stderr));
  assert.is(String(cut.stdout) + String(cut.stderr), '');
  const bad = await execa(process.execPath, [orchJs, 'serve'], { input: frame('{id: 1'), reject: false, env: { NO_COLOR: '1' } });
  assert.is(bad.exitCode, 1);
  assert.is(String(bad.stdout), '');
  assert.match(String(bad.stderr), /^error E_SERVE_PROTOCOL: orch serve: a request header is not JSON \(.*\)$/m);
});

t.run();
