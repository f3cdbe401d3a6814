import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stencilModule, TempProject } from './TempProject.js';

/**
 * compiler.launcher (CMAKE_CXX_COMPILER_LAUNCHER): `['ccache']` runs every g++ call
 * through ccache, so a second build from a clean orch cache is a ccache hit; ccache and
 * distcc do not change the output, so they stay out of orch's cache key, while another
 * launcher is part of it.
 */

const t = suite('compiler.launcher');

const ccacheDir = mkdtempSync(path.join(os.tmpdir(), 'orch-ccache-'));
const env = { CCACHE_DIR: ccacheDir };

async function ccacheStats(): Promise<Record<string, number>> {
  const r = await execa('ccache', ['--print-stats'], { env, reject: false });
  assert.is(r.exitCode, 0, `ccache --print-stats: ${r.stderr}`);
  return Object.fromEntries(String(r.stdout).split('\n').map((l) => l.split('\t')).filter((p) => p.length === 2).map(([k, v]) => [k, Number(v)]));
}

const config = (launcher: string | null) => `export default { compiler: { ${launcher ? `launcher: ${launcher}, ` : ''}flags: ['-O1', '-std=c++17', '-fPIC', '-shared'] } };\n`;

t("['ccache'] builds through ccache; a second build from a clean orch cache hits ccache", async () => {
  const p = new TempProject('launcher');
  p.write('orch.config.ts', config("['ccache']"));
  p.write('smooth.py', stencilModule('smooth', 'a + w * (a[1, 0, 0] - a)'));
  const first = await p.orch(['build', 'smooth.py', '--verbose'], env);
  assert.is(first.code, 0, first.stderr);
  const before = await ccacheStats();
  assert.ok(before.cache_miss >= 1, `the first build went through ccache: ${JSON.stringify(before)}`);
  const clean = await p.orch(['clean'], env);
  assert.is(clean.code, 0, clean.stderr);
  const second = await p.orch(['build', 'smooth.py'], env);
  assert.is(second.code, 0, second.stderr);
  assert.match(second.stdout + second.stderr, 'built');
  const after = await ccacheStats();
  const hits = (s: Record<string, number>) => (s.direct_cache_hit ?? 0) + (s.preprocessed_cache_hit ?? 0);
  assert.ok(hits(after) > hits(before), `the second build hit ccache: ${JSON.stringify(after)}`);

  // ccache does not change the output: the entry built through it serves a build without it
  p.write('orch.config.ts', config(null));
  const plain = await p.orch(['build', 'smooth.py', '--json'], env);
  assert.is(JSON.parse(plain.stdout).entries[0].status, 'hit', plain.stdout);
  // a launcher that may change the output is part of the key
  p.write('orch.config.ts', config("['env', 'ORCH_TEST_LAUNCHER=1']"));
  const other = await p.orch(['build', 'smooth.py', '--json'], env);
  assert.is(other.code, 0, other.stderr);
  const entry = JSON.parse(other.stdout).entries[0];
  assert.is(entry.status, 'miss', other.stdout);
});

t('a launcher that is not a list of strings is a config error', async () => {
  const p = new TempProject('launcher-bad');
  p.write('orch.config.ts', "export default { compiler: { launcher: 'ccache' } };\n");
  p.write('smooth.py', stencilModule('smooth', 'a'));
  const r = await p.orch(['build', 'smooth.py'], env);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, 'E_CONFIG_VALUE');
  assert.match(r.stderr, "launcher: ['ccache']");
});

t.run();
