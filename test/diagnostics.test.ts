import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { frame } from '../cli/ProgressDisplay.js';
import { ORCH_BIN, stencilModule, STENCIL_HEADER, TempProject } from './TempProject.js';

/** What a user sees: did-you-mean, replayed warnings, progress, --quiet, --time-passes. */

const diag = suite('diagnostics and output');

diag('warnings are cached with the entry and replayed on a hit', async () => {
  const p = new TempProject('warnings');
  p.write('m.py', stencilModule('s', 'w * a'));
  p.write('warn.h', '#warning this header warns on purpose\n');
  p.write('orch.config.ts', `export default { modules: ['m.py'], compiler: { extraFlags: ['-include', ${JSON.stringify(p.path('warn.h'))}] } };\n`);
  const first = await p.orch(['build', '--json']);
  assert.is(first.code, 0, first.stderr);
  assert.is(JSON.parse(first.stdout).entries[0].status, 'miss');
  assert.match(first.stderr, /warn\.h:1:\d+: warning W_CXX: #warning this header warns on purpose/);
  const second = await p.orch(['build', '--json']);
  assert.is(JSON.parse(second.stdout).entries[0].status, 'hit');
  assert.match(second.stderr, /warn\.h:1:\d+: warning W_CXX: #warning this header warns on purpose/, 'replayed on the hit');
  const info = JSON.parse((await p.orch(['info', '--json'])).stdout);
  assert.is(info[0].build.warnings, 1);
});

diag('a compiler error without a location says what failed, not "compilation terminated"', async () => {
  const p = new TempProject('driver');
  p.write('m.py', stencilModule('s', 'w * a'));
  p.write('orch.config.ts', "export default { modules: ['m.py'], compiler: { extraFlags: ['-include', 'no-such-header.h'] } };\n");
  const r = await p.orch(['build']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /error E_CXX: g\+\+ failed: .*fatal error: no-such-header\.h: No such file or directory/);
  assert.match(r.stderr, 'hint: see the full compiler output with --verbose');
});

diag('did-you-mean for entry names and externals', async () => {
  const p = new TempProject('dym');
  p.write('m.py', stencilModule('scale', 'w * a'));
  const entry = await p.orch(['run', 'm.py:scal', '--shape', '3,3,3', '--scalars', '{"w": 1}']);
  assert.is(entry.code, 1);
  assert.match(entry.stderr, 'E_ENTRY_NOT_FOUND');
  assert.match(entry.stderr, "did you mean 'scale'?");
  p.write('e.py', `${STENCIL_HEADER}\n\ndef s(a: FloatField, b: FloatField):\n    from __externals__ import SCALE\n    with computation(PARALLEL), interval(...):\n        b = SCALE * a\n`);
  const ext = await p.orch(['build', 'e.py', '--externals', '{"SCAEL": 2.0}']);
  assert.is(ext.code, 1);
  assert.match(ext.stderr, /e\.py:6:31: error E_EXTERNAL_MISSING: external 'SCALE' has no value/);
  assert.match(ext.stderr, "did you mean 'SCAEL'?");
  assert.match(ext.stderr, /\|\s+\^{5}/, 'the caret underlines the name');
});

diag('--quiet prints nothing but errors; --time-passes prints a table per pass and plugin', async () => {
  const p = new TempProject('quiet');
  p.write('m.py', stencilModule('s', 'w * a'));
  const quiet = await p.orch(['build', 'm.py', '--quiet', '--time-passes']);
  assert.is(quiet.code, 0, quiet.stderr);
  assert.is(quiet.stdout, '');
  for (const pass of ['parse:orch:parse', 'libraryExpansion:orch:libraryExpansion', 'compile:orch:compile', 'emit:orch:emit']) assert.match(quiet.stderr, pass);
  // each simplify pass is timed on its own
  for (const pass of ['simplify1:orch:constantFolding', 'simplify1:orch:deadCode', 'simplify2:orch:copyPropagation', 'simplify2:orch:fusion', 'simplify2:orch:scalarization', 'simplify2:orch:mergeBlocks', 'simplify2:orch:tiling', 'simplify2:orch:planes']) assert.match(quiet.stderr, pass);
  assert.match(quiet.stderr, /\d+\.\d+\s+total/);
  p.write('m.py', stencilModule('s', 'w * a + 1.0'));
  const json = await p.orch(['build', 'm.py', '--json', '--time-passes']);
  assert.is(json.code, 0, json.stderr);
  const times = JSON.parse(json.stdout).pass_times_ms as Record<string, number>;
  for (const pass of ['parse:orch:parse', 'simplify2:orch:fusion', 'emit:orch:emit']) assert.type(times[pass], 'number', `--json lists ${pass}`);
  const hit = await p.orch(['build', 'm.py', '--time-passes']);
  assert.match(hit.stderr, 'note: 1 entry was a cache hit and ran no pass');
  p.write('m.py', stencilModule('s', 'w * b['));
  const broken = await p.orch(['build', 'm.py', '--quiet']);
  assert.is(broken.code, 1);
  assert.is(broken.stdout, '');
  assert.match(broken.stderr, 'E_SYNTAX');
});

diag('--print-ir-after prints the IR after the named pass, or after every pass', async () => {
  const p = new TempProject('ir');
  p.write('m.py', stencilModule('s', 'w * a'));
  const one = await p.orch(['build', 'm.py', '--print-ir-after', 'libraryExpansion', '--quiet']);
  assert.is(one.code, 0, one.stderr);
  assert.match(one.stderr, '// IR after libraryExpansion (orch:libraryExpansion) of m.py:s');
  assert.match(one.stderr, 'vloop PARALLEL');
  assert.not.match(one.stderr, '// IR after parse');
  const fusion = await p.orch(['run', 'm.py:s', '--mode', 'python', '--shape', '3,3,2', '--scalars', '{"w": 1}', '--print-ir-after', 'fusion']);
  assert.is(fusion.code, 0, fusion.stderr);
  assert.is(fusion.stderr.match(/\/\/ IR after /g)?.length, 1, 'one pass printed');
  assert.match(fusion.stderr, '// IR after fusion (orch:fusion in simplify2) of m.py:s');
  const stage = await p.orch(['run', 'm.py:s', '--mode', 'python', '--shape', '3,3,2', '--scalars', '{"w": 1}', '--print-ir-after', 'simplify2']);
  assert.is(stage.stderr.match(/\/\/ IR after /g)?.length, 1, 'a stage name prints once, after the stage');
  assert.match(stage.stderr, '// IR after simplify2 of m.py:s');
  p.write('m.py', stencilModule('s', 'w + a'));
  const all = await p.orch(['build', 'm.py', '--print-ir-after', 'all', '--quiet']);
  // every pass by name, the simplify passes each on its own
  for (const pass of ['parse (orch:parse)', 'constantFolding (orch:constantFolding in simplify1)', 'deadCode (orch:deadCode in simplify1)', 'regionExpansion (', 'libraryExpansion (', 'copyPropagation (orch:copyPropagation in simplify2)', 'fusion (orch:fusion in simplify2)', 'scalarization (', 'mergeBlocks (', 'tiling (', 'planes (orch:planes in simplify2)', 'pooling (', 'debugInsertion (']) assert.match(all.stderr, `// IR after ${pass}`);
  assert.not.match(all.stderr, '// IR after codegen', 'codegen leaves the IR as it was');
});

diag('without a terminal, progress is one plain line per finished entry', async () => {
  const p = new TempProject('plain');
  p.write('a.py', stencilModule('sa', 'w * a'));
  p.write('b.py', stencilModule('sb', 'w + a'));
  const r = await p.orch(['build', 'a.py', 'b.py']);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.is(lines.length, 3);
  assert.match(lines[0], /^\[1\/2\] miss {2}(a|b)\.py:s(a|b): no cache entry yet; built in \d+\.\d\d s \([0-9a-f]{12}\)$/);
  assert.match(lines[1], /^\[2\/2\] miss /);
  assert.match(lines[2], /^2 entries: 0 hit, 2 built, 0 error\(s\) in \d+\.\d\d s$/);
  assert.not.match(r.stderr + r.stdout, '\x1b[', 'no terminal escapes in CI logs');
});

diag('in a terminal, a live frame shows each entry in its stage, then the final report', async () => {
  const p = new TempProject('tty');
  for (const n of ['a', 'b', 'c']) p.write(`${n}.py`, stencilModule(`s${n}`, 'w * a'));
  // script(1) gives the build a pseudo-terminal of a fixed size
  const cmd = `stty rows 30 cols 120; GT_CACHE_ROOT='${p.dir}' '${process.execPath}' '${ORCH_BIN}' build a.py b.py c.py`;
  const r = await execa('script', ['-qec', cmd, '/dev/null'], { cwd: p.dir, reject: false });
  assert.is(r.exitCode, 0, String(r.stdout));
  const out = String(r.stdout);
  assert.match(out, /\[[#.]{24}\] \d\/3 entries: \d hit, \d built, 0 error\(s\); \d+\.\d s/, 'the bar');
  assert.match(out, /\n {2}(lookup|parse|codegen|compile|emit)[^\n]* \d\s*\r?\n/, 'entries per stage');
  assert.match(out, /\n {2}compile {10}[abc]\.py:s[abc] \(\d+\.\d s\)/, 'an entry in its stage');
  assert.match(out, '\x1b[2K', 'redrawn in place');
  assert.match(out, /miss {2}a\.py:sa: no cache entry yet/);
  assert.match(out, '3 entries: 0 hit, 3 built, 0 error(s)');
});

diag('the frame: bar, counts per stage, entries in flight cut to the terminal width', () => {
  const ref = (m: string) => ({ module: `/p/${m}`, moduleRel: m, entry: 'main' });
  const lines = frame(
    {
      total: 4,
      done: 2,
      hits: 1,
      built: 1,
      errors: 0,
      startedAt: 0,
      active: [
        { ref: ref('a.py'), stage: 'compile', since: 1000 },
        { ref: ref('very/long/path/to/a/module/that/does/not/fit.py'), stage: 'parse', since: 1500 },
      ],
    },
    2500,
    40,
  );
  assert.is(lines[0], '[############............] 2/4 entries: 1 hit, 1 built, 0 error(s); 2.5 s');
  assert.is(lines[1], '  parse 1 | compile 1');
  assert.is(lines[2], '  compile          a.py:main (1.5 s)');
  assert.is(lines[3].length, 40);
  assert.ok(lines[3].endsWith('…'));
});

diag.run();
