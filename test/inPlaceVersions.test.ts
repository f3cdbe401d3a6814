import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import type { Program, Tiling } from '../core/ir/types.js';
import { launches } from '../core/ir/visit.js';
import { buildEntryArgs } from '../core/runtime/callArgs.js';
import { cloneArray, type NDArray } from '../core/runtime/ndarray.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';

/**
 * Issue 18 item 2: launches that update a field in place and read it sideways later in the
 * same launch (del-n damping, the dycore) are tiled with a version of the field per tile.
 * On domains cut into many tiles, the tiled program gives bitwise the untiled results, in
 * the interpreter and compiled.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const programs = path.resolve(here, '../../fixtures/programs');
const orchBin = path.resolve(here, '../../dist/bin/orch.js');
const cacheRoot = mkdtempSync(path.join(os.tmpdir(), 'orch-inplace-'));
const base = { ...(await resolveConfig({ configFile: null, cwd: cacheRoot })), cacheRoot };

const CASES: { entry: string; scalars: Record<string, number>; versioned: string[]; dir?: string }[] = [
  { entry: 'deln_damping', scalars: { damp: 0.05 }, versioned: ['q'] },
  { entry: 'dycore', scalars: { dt: 0.1 }, versioned: ['p', 'u', 'delp', 'v'] },
  // the in-place field's only writer writes in edge regions (a tile runs and commits only those)
  { entry: 'edge_damping', scalars: { damp: 0.5 }, versioned: ['q'], dir: programs },
];
// several tiles along I and J, whatever size the tiling pass widens them to
const SHAPE = [45, 70, 4];

// unrollLoops is named either way: the preset unrolls, and a fused launch's wider tiles would not cut SHAPE
async function build(entry: string, tiling: boolean, tile?: [number, number, number], dir = fixtures, unrollLoops = false) {
  const config = { ...base, passes: { ...base.passes, tiling }, codegen: { ...base.codegen, ...(tile ? { tile } : {}), unrollLoops } };
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [path.join(dir, `${entry}.py`)], entry, externals: {}, defines: {}, mode: 'python' });
  if (r.errors.length) throw new Error(formatDiagnostic(r.errors[0]));
  return r.entries[0];
}

function tilings(p: Program): Tiling[] {
  return launches(p.body).flatMap((l) => (l.tile ? [l.tile] : []));
}

const t = suite('in-place versions');

for (const c of CASES) {
  t(`${c.entry}: the launch updating ${c.versioned.join(', ')} in place is tiled with versions`, async () => {
    const e = await build(c.entry, true, undefined, c.dir);
    const tiled = tilings(e.program!);
    assert.ok(tiled.length > 0, 'a launch is tiled');
    assert.equal(tiled.flatMap((x) => (x.versioned ?? []).map((v) => v.name)).sort(), [...c.versioned].sort());
  });

  for (const tile of [undefined, [3, 2, 4] as [number, number, number]]) {
    t(`${c.entry}: tiled${tile ? ` (${tile.join('x')} preset tiles)` : ''} gives the untiled results bitwise on ${SHAPE.join('x')}`, async () => {
      let reference: Record<string, NDArray> | undefined;
      let inputs: Record<string, NDArray> | undefined;
      for (const tiling of [false, true]) {
        const e = await build(c.entry, tiling, tile, c.dir);
        if (tiling) {
          const [ti, tj] = tilings(e.program!).find((x) => x.versioned)!.size;
          assert.ok(Math.ceil((SHAPE[0] - 6) / ti) > 1 && Math.ceil((SHAPE[1] - 6) / tj) > 1, `tiles ${ti}x${tj} cut the domain both ways`);
        }
        inputs ??= syntheticInputs(e.iface!, SHAPE, {});
        const fields = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, cloneArray(v)]));
        new Interpreter(e.program!).run(buildEntryArgs(e.iface!, { fields, scalars: c.scalars }));
        if (!reference) {
          reference = fields;
          continue;
        }
        for (const [k, v] of Object.entries(reference)) {
          for (let n = 0; n < v.data.length; n++) {
            const a = Number(v.data[n]);
            const b = Number(fields[k].data[n]);
            if (!(a === b || (Number.isNaN(a) && Number.isNaN(b)))) assert.unreachable(`${k}[${n}] is ${b} tiled, ${a} untiled`);
          }
        }
      }
    });
  }

  // the second shape has tiles with neighbours on every side (their tile arrays need no zero fill)
  for (const shape of [SHAPE, [70, 100, 4]]) {
    t(`${c.entry}: the compiled library matches the interpreter bitwise on ${shape.join('x')}`, async () => {
      const args = ['run', `${path.join(c.dir ?? fixtures, `${c.entry}.py`)}:${c.entry}`, '--shape', shape.join(','), '--scalars', JSON.stringify(c.scalars), '--mode', 'build-and-run', '--check', '--json'];
      const r = await execa(process.execPath, [orchBin, ...args], { cwd: cacheRoot, env: { GT_CACHE_ROOT: cacheRoot, OMP_NUM_THREADS: '2' }, reject: false });
      assert.is(r.exitCode, 0, String(r.stderr));
      const check = JSON.parse(String(r.stdout)).check;
      assert.ok(check.passed, String(r.stdout));
      assert.is(check.maxAbs, 0, String(r.stdout));
    });
  }
}

// codegen.versionedTileK reaches the tiling pass: whole columns, and the numbers stay bitwise
t('dycore: codegen.versionedTileK false keeps whole columns; compiled, it matches the interpreter bitwise', async () => {
  const kOf = async (codegen: object) => {
    const compiler = new Compiler({ ...base, codegen: { ...base.codegen, ...codegen } }, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
    const r = await compiler.build({ modules: [path.join(fixtures, 'dycore.py')], entry: 'dycore', externals: {}, defines: {}, mode: 'python' });
    if (r.errors.length) throw new Error(formatDiagnostic(r.errors[0]));
    return tilings(r.entries[0].program!).filter((x) => x.versioned).map((x) => x.k);
  };
  assert.equal(await kOf({}), [16]);
  assert.equal(await kOf({ versionedTileK: 8 }), [8]);
  assert.equal(await kOf({ versionedTileK: false }), [undefined]);
  const dir = mkdtempSync(path.join(cacheRoot, 'whole-columns-'));
  writeFileSync(path.join(dir, 'orch.config.ts'), 'export default { codegen: { versionedTileK: false } };\n');
  const args = ['run', `${path.join(fixtures, 'dycore.py')}:dycore`, '--config', path.join(dir, 'orch.config.ts'), '--shape', '70,100,20', '--scalars', JSON.stringify({ dt: 0.1 }), '--mode', 'build-and-run', '--check', '--json'];
  const r = await execa(process.execPath, [orchBin, ...args], { cwd: dir, env: { GT_CACHE_ROOT: dir, OMP_NUM_THREADS: '2' }, reject: false });
  assert.is(r.exitCode, 0, String(r.stderr));
  const check = JSON.parse(String(r.stdout)).check;
  assert.ok(check.passed, String(r.stdout));
  assert.is(check.maxAbs, 0, String(r.stdout));
});

// p is written before it is read (unfilled): no tile reads the array p itself, so its band
// points need not wait in the shadow for the other tiles, nor a second pass to publish them
t('dycore: an unfilled version commits straight to its array; filled ones go through their shadows', async () => {
  const config = { ...base, codegen: { ...base.codegen, lineDirectives: false } };
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [path.join(fixtures, 'dycore.py')], entry: 'dycore', externals: {}, defines: {}, mode: 'build' });
  if (r.errors.length) throw new Error(formatDiagnostic(r.errors[0]));
  const cpp = readFileSync(path.join(r.entries[0].dir!, 'orch_dycore.cpp'), 'utf8');
  const versions = tilings(r.entries[0].program!).flatMap((x) => x.versioned ?? []);
  assert.equal(versions.filter((v) => !v.fill).map((v) => v.name), ['p']);
  for (const v of versions) {
    const copies = cpp.split('\n').filter((line) => line.includes(`p_${v.shadow} +`)).length;
    // commit into the shadow, publish out of it
    assert.is(copies, v.fill ? 2 : 0, `${v.shadow}: ${copies} column copies`);
  }
});

// codegen.unrollLoops: the n_pass (del-n) and n_split (dycore) iterations fuse into one launch, versioned once for all
for (const c of CASES.filter((x) => !x.dir)) {
  t(`${c.entry}, unrollLoops: all iterations run in one tiled launch versioning ${c.versioned.join(', ')}`, async () => {
    const e = await build(c.entry, true, undefined, fixtures, true);
    const ls = launches(e.program!.body);
    assert.is(ls.length, 1, ls.map((l) => l.stencil).join(' | '));
    assert.equal((ls[0].tile?.versioned ?? []).map((v) => v.name).sort(), [...c.versioned].sort());
  });

  for (const tile of [undefined, [3, 2, 4] as [number, number, number]]) {
    t(`${c.entry}, unrollLoops: the fused launch${tile ? ` (${tile.join('x')} preset tiles)` : ''} gives the untiled, unfused results bitwise on ${SHAPE.join('x')}`, async () => {
      const inputs = syntheticInputs((await build(c.entry, false)).iface!, SHAPE, {});
      const out: Record<string, NDArray>[] = [];
      for (const [tiling, unroll] of [[false, false], [true, true]]) {
        const e = await build(c.entry, tiling, tile, fixtures, unroll);
        const fields = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, cloneArray(v)]));
        new Interpreter(e.program!).run(buildEntryArgs(e.iface!, { fields, scalars: c.scalars }));
        out.push(fields);
      }
      for (const [k, v] of Object.entries(out[0])) {
        for (let n = 0; n < v.data.length; n++) {
          const [a, b] = [Number(v.data[n]), Number(out[1][k].data[n])];
          if (!(a === b || (Number.isNaN(a) && Number.isNaN(b)))) assert.unreachable(`${k}[${n}] is ${b} fused, ${a} unfused`);
        }
      }
    });
  }
}

for (const shape of [SHAPE, [70, 100, 4]]) {
  t(`deln_damping, unrollLoops: the compiled fused launch matches the interpreter bitwise on ${shape.join('x')}`, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-unroll-'));
    writeFileSync(path.join(dir, 'orch.config.ts'), 'export default { codegen: { unrollLoops: true } };\n');
    const args = ['run', `${path.join(fixtures, 'deln_damping.py')}:deln_damping`, '--shape', shape.join(','), '--scalars', JSON.stringify({ damp: 0.05 }), '--mode', 'build-and-run', '--check', '--json'];
    const r = await execa(process.execPath, [orchBin, ...args], { cwd: dir, env: { GT_CACHE_ROOT: dir, OMP_NUM_THREADS: '2' }, reject: false });
    assert.is(r.exitCode, 0, String(r.stderr));
    const check = JSON.parse(String(r.stdout)).check;
    assert.ok(check.passed, String(r.stdout));
    assert.is(check.maxAbs, 0, String(r.stdout));
  });
}

t.run();
