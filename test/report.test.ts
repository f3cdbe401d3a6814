import { execa } from 'execa';
import { existsSync, statSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MEMORY_COLOURS } from '../cli/report/htmlReport.js';
import { countColour, countInk, readPng } from './pngPixels.js';
import { STENCIL_HEADER, TempProject } from './TempProject.js';

/** `orch report`: one self-contained HTML page, rendered by a real (headless) browser. */

const report = suite('orch report');

// a custom pass between fusion and scalarization that leaves the IR as it is
const CONFIG = `import { defineConfig, PassPlugin } from 'orch';
export default defineConfig({
  modules: ['m.py'],
  plugins: [new PassPlugin({ name: 'count-launches', version: '1', hook: 'simplify2', stage: 25, run: (program) => program })],
});
`;

const MODULE = `${STENCIL_HEADER}
from orch import program, stencil, temporary


@stencil
def laplacian(q: FloatField, lap: FloatField):
    with computation(PARALLEL), interval(...):
        lap = q[1, 0, 0] + q[-1, 0, 0] + q[0, 1, 0] + q[0, -1, 0] - 4.0 * q


@stencil
def relax(q: FloatField, lap: FloatField, w: Float):
    with computation(PARALLEL), interval(...):
        q = q + w * lap


@stencil
def scale(q: FloatField, out: FloatField, w: Float):
    with computation(PARALLEL), interval(...):
        out = w * q


@program
def scale_once(q: FloatField, out: FloatField, w: Float):
    scale(q, out, w)


@program
def smooth_twice(q: FloatField, w: Float):
    lap_a = temporary(q)
    lap_b = temporary(q)
    nx, ny, nz = q.shape
    laplacian(q, lap_a, origin=(1, 1, 0), domain=(nx - 2, ny - 2, nz))
    relax(q, lap_a, w, origin=(1, 1, 0), domain=(nx - 2, ny - 2, nz))
    laplacian(q, lap_b, origin=(1, 1, 0), domain=(nx - 2, ny - 2, nz))
    relax(q, lap_b, w, origin=(1, 1, 0), domain=(nx - 2, ny - 2, nz))
`;

report('--time-passes lists every pass, a custom plugin pass included, in the table and in --json', async () => {
  const p = new TempProject('timepasses');
  p.write('orch.config.ts', CONFIG);
  p.write('m.py', MODULE);
  const r = await p.orch(['build', '--time-passes', '--json']);
  assert.is(r.code, 0, r.stderr);
  const times = JSON.parse(r.stdout).pass_times_ms as Record<string, number>;
  const passes = ['parse:orch:parse', 'simplify1:orch:constantFolding', 'simplify1:orch:deadCode', 'simplify2:orch:copyPropagation', 'simplify2:orch:fusion', 'simplify2:count-launches', 'simplify2:orch:scalarization', 'simplify2:orch:tiling', 'pooling:orch:pooling', 'compile:orch:compile', 'emit:orch:emit'];
  for (const pass of passes) {
    assert.type(times[pass], 'number', `--json times ${pass}`);
    assert.match(r.stderr, new RegExp(`^\\s+\\d+\\.\\d+\\s+\\d+\\.\\d+%\\s+${pass}$`, 'm'), `the table lists ${pass}`);
  }
});

report('writes one self-contained page with time per pass and entry and memory per array, which chromium renders', async () => {
  const p = new TempProject('report');
  p.write('orch.config.ts', CONFIG);
  p.write('m.py', MODULE);
  const r = await p.orch(['report', '--domain', '16,8,5', '-o', 'report.html', '--json']);
  assert.is(r.code, 0, r.stderr);
  const data = JSON.parse(r.stdout);
  assert.is(data.output, p.path('report.html'));
  assert.ok(data.passes.some((x: { name: string }) => x.name === 'simplify2:count-launches'), 'the custom pass is timed');
  const entries = data.entries.map((e: { name: string }) => e.name).sort();
  assert.equal(entries, ['m.py:scale_once', 'm.py:smooth_twice']);
  const prog = data.entries.find((e: { name: string }) => e.name === 'm.py:smooth_twice');
  // two pooled 16x8x5 float64 temporaries: 5120 bytes each, one arena
  const lap = prog.memory.arrays.filter((a: { name: string }) => a.name.startsWith('lap_'));
  // since in-place updates read sideways became tile-legal (issue 18 item 2) both calls run
  // in one tiled launch and the temporaries may live in tile buffers instead of the arena
  assert.equal(lap.map((a: { bytes: number }) => a.bytes), [5120, 5120]);
  for (const a of lap) assert.ok(a.pooled || a.tile, `${a.name} is pooled or tile-local: ${JSON.stringify(a)}`);
  const pooledBytes = lap.filter((a: { pooled: boolean }) => a.pooled).reduce((n: number, a: { bytes: number }) => n + a.bytes, 0);
  assert.is(prog.memory.totals.temporaryArenaBytes, pooledBytes);
  assert.is(prog.memory.totals.argBytes, 5120);

  const html = p.read('report.html');
  for (const name of ['simplify2:count-launches', 'simplify2:orch:fusion', 'compile:orch:compile', 'm.py:smooth_twice', 'lap_a', 'lap_b', 'domain 16×8×5', 'pooled (in an arena)']) assert.ok(html.includes(name), `the page names ${name}`);
  // self-contained: nothing fetched, nothing run
  assert.not.match(html, /<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import/i);

  const png = p.path('report.png');
  const shot = await execa('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', `--screenshot=${png}`, '--window-size=1000,1400', `file://${p.path('report.html')}`], { reject: false, timeout: 120_000 });
  assert.ok(existsSync(png), `chromium wrote no screenshot (is Debian's chromium installed? .ci/run installs it):\n${shot.stderr}`);
  assert.ok(statSync(png).size > 1000);
  const pixels = readPng(png);
  assert.is(pixels.width, 1000);
  assert.is(pixels.height, 1400);
  const ink = countInk(pixels) / (pixels.width * pixels.height);
  assert.ok(ink > 0.02 && ink < 0.6, `the page is drawn, not blank (${(100 * ink).toFixed(1)}% of pixels are not white)`);
  // the bars themselves, in their colours: pooled temporaries and the caller's arguments
  assert.ok(countColour(pixels, MEMORY_COLOURS.pooled) > 500, 'pooled arrays are drawn');
  assert.ok(countColour(pixels, MEMORY_COLOURS.argument) > 500, 'arguments are drawn');
});

report('a module with nothing to report on is an error, and no page is written', async () => {
  const p = new TempProject('report-empty');
  p.write('consts.py', 'GAIN = 0.5\n');
  const r = await p.orch(['report', 'consts.py', '-o', 'report.html']);
  assert.is(r.code, 1);
  assert.is(r.stderr.trim(), `error E_NO_ENTRIES: ${p.path('consts.py')} holds no stencil or program to report on\nhint: name a module with a stencil or a @program`);
  assert.not.ok(existsSync(p.path('report.html')));
});

report('--domain that is not three integers is a usage error', async () => {
  const p = new TempProject('report-usage');
  p.write('m.py', MODULE);
  const r = await p.orch(['report', 'm.py', '--domain', '16,8']);
  assert.is(r.code, 2);
  assert.is(r.stderr.trim(), "error E_USAGE_DOMAIN: --domain expects integers separated by commas, got '16,8'\nhint: write --domain 1,2,3");
});

report.run();
