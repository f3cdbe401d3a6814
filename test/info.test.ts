import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stencilModule, TempProject } from './TempProject.js';

/** `orch info [module]`: entries, keys, history, last miss reason, build info, memory report. */

const info = suite('orch info');

info('lists keys, history, the last miss reason, build info and the memory report', async () => {
  const p = new TempProject('info');
  p.write('m.py', stencilModule('s', 'w * a'));
  p.write('m2.py', stencilModule('s2', 'w + a'));
  assert.is((await p.orch(['build', 'm.py', 'm2.py', '--quiet'])).code, 0);
  p.write('m.py', stencilModule('s', 'w / a'));
  await p.orch(['build', 'm.py', '--quiet']);
  await p.orch(['build', 'm.py', '--quiet']);

  const r = await p.orch(['info', 'm.py', '--json']);
  assert.is(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout);
  assert.is(rows.length, 1, "'m.py' does not match m2.py");
  const e = rows[0];
  assert.is(e.entry, 'm/s');
  assert.is(e.keys.length, 2, 'one key per variant built');
  assert.ok(e.keys.includes(e.latest));
  assert.equal([e.hits, e.misses, e.errors], [1, 2, 0]);
  assert.is(e.last_miss_reason, 'm.py changed');
  assert.equal(e.recent.map((h: { result: string }) => h.result), ['miss', 'miss', 'hit']);
  assert.is(e.status, 'ok');
  assert.is(e.build.preset, 'cpu');
  assert.match(e.build.compiler, /g\+\+/);
  assert.match(e.build.flags, '-O3');
  assert.is(e.build.library, 'liborch_s.so');
  assert.is(e.build.symbol, 'orch_s');
  assert.is(e.build.codepath, 'A');
  assert.equal(e.build.sources, [p.path('m.py')]);
  assert.ok(e.build.timings.compile > 0);
  assert.equal(
    e.memory.arrays.map((a: { name: string; role: string }) => `${a.role} ${a.name}`),
    ['arg a', 'arg b'],
  );

  const text = await p.orch(['info']);
  assert.match(text.stdout, /^m\/s\n {2}key [0-9a-f]{16} \(2 variant\(s\)\), ok\n {2}history: 1 hit\(s\), 2 miss\(es\), 0 error\(s\); last miss: m\.py changed\n/m);
  assert.match(text.stdout, /^m2\/s2\n/m);
  assert.match(text.stdout, /library liborch_s\.so \(symbol orch_s\), code path A, 0 warning\(s\)/);
  assert.match(text.stdout, /memory: 2 array\(s\)\n {4}arg {7}a float64\[a\.shape\[0\], a\.shape\[1\], a\.shape\[2\]\]/);

  const none = await p.orch(['info', 'nothing.py']);
  assert.match(none.stdout, 'no cache entries');
});

info('the memory report says which transients live per tile', async () => {
  const p = new TempProject('info-tiles');
  p.write(
    'h.py',
    `from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl.dsl.typing import FloatField


def smooth(q: FloatField, out: FloatField):
    with computation(PARALLEL), interval(...):
        lap = 4.0 * q - (q[1, 0, 0] + q[-1, 0, 0] + q[0, 1, 0] + q[0, -1, 0])
        out = lap[1, 0, 0] + lap[-1, 0, 0] - 2.0 * lap
`,
  );
  assert.is((await p.orch(['build', 'h.py', '--quiet'])).code, 0);
  const rows = JSON.parse((await p.orch(['info', 'h.py', '--json'])).stdout);
  const lap = rows[0].memory.arrays.find((a: { name: string }) => a.name.endsWith('_lap'));
  // the CPU presets' tile 'auto' gives fused nests with halos 32x32 tiles (launchTiles.ts)
  assert.is(lap.tile, 'per 32x32 tile');
  assert.is(lap.pooled, false, 'a tile-local array takes no arena space');
  assert.match(rows[0].memory.totals.transient.note, '1 per tile (thread tile scratch)');
  assert.match((await p.orch(['info', 'h.py'])).stdout, /transient \S+_lap float64\[.*\] per 32x32 tile/);
});

info.run();
