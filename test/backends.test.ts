import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Backend } from '../core/config/Backend.js';
import { resolveConfig } from '../core/config/loadConfig.js';
import type { Preset, Toolset } from '../core/config/types.js';
import { Compiler } from '../core/Compiler.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { backends } from '../plugins/backends/index.js';
import { builtinPlugins } from '../plugins/builtins.js';
import { presets } from '../presets/index.js';
import { REPO } from './TempProject.js';

/**
 * A preset names its backend, and the stages reach the hardware only through it: a
 * backend the core and the stages have never seen generates, compiles and decides the
 * memory layout of a build.
 */

const FIXTURE = path.join(REPO, 'fixtures/diffusion/diffusion.py');

function toolsetWith(backend: Backend): Toolset {
  const preset: Preset = { ...presets.cpu, name: 'custom', backend: backend.name };
  return { stages: builtinPlugins, presets: { ...presets, custom: preset }, backends: { ...backends, [backend.name]: backend } };
}

async function build(toolset: Toolset, preset: string, mode: 'build' | 'python') {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-backends-'));
  const config = await resolveConfig(toolset, { configFile: null, cwd: dir, preset });
  config.cacheRoot = dir;
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [FIXTURE], entry: 'diffuse', externals: {}, defines: {}, mode });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  assert.is(r.entries[0].errors.length, 0, r.entries[0].errors.map((d) => formatDiagnostic(d)).join('\n'));
  return { config, entry: r.entries[0] };
}

test('every built-in preset names a backend of the toolset', async () => {
  for (const [name, p] of Object.entries(presets)) assert.ok(backends[p.backend], `preset ${name} names backend '${p.backend}'`);
  const toolset: Toolset = { stages: builtinPlugins, presets, backends };
  const names = Object.fromEntries(await Promise.all(Object.keys(presets).map(async (p) => [p, (await resolveConfig(toolset, { configFile: null, preset: p })).backend.name])));
  assert.equal(names, { cpu: 'cpu', 'cpu-native': 'cpu', debug: 'cpu', cuda: 'cuda', 'cuda-h100': 'cuda', 'cuda-a100': 'cuda' });
});

test('a preset naming a backend the toolset lacks is refused, listing the backends', async () => {
  const toolset: Toolset = { stages: builtinPlugins, presets: { odd: { ...presets.cpu, name: 'odd', backend: 'fpga' } }, backends };
  try {
    await resolveConfig(toolset, { configFile: null, preset: 'odd' });
    assert.unreachable('resolved');
  } catch (e) {
    assert.match((e as Error).message, /preset 'odd' names backend 'fpga', which is not one of the toolset's \(cpu, cuda\)/);
  }
});

test('pooling places temporaries in arenas only for a backend that has them', async () => {
  const pooled = (await build({ stages: builtinPlugins, presets, backends }, 'cpu', 'python')).entry.program!;
  assert.ok(pooled.arrays.some((a) => a.pool), 'the cpu backend pools');
  const noArenas: Backend = { ...backends.cpu, name: 'no-arenas', arenas: false };
  const own = (await build(toolsetWith(noArenas), 'custom', 'python')).entry.program!;
  assert.ok(own.arrays.some((a) => a.role !== 'arg'), 'the program has temporaries or transients');
  assert.ok(own.arrays.every((a) => !a.pool), 'nothing pooled without arenas');
});

test('codegen, compile and the memory report go through the preset\'s backend', async () => {
  const calls: string[] = [];
  const traced: Backend = {
    ...backends.cpu,
    name: 'traced',
    storage: 'device',
    memoryNotes: { arg: 'traced args', temporary: 'traced temporaries', transient: 'traced transients' },
    toolchainIdentity: (cxx, flags) => {
      calls.push('identity');
      return backends.cpu.toolchainIdentity(cxx, flags);
    },
    generate: (program, options) => {
      calls.push('generate');
      return { ...backends.cpu.generate(program, options), extraFiles: [{ name: 'traced.txt', text: 'made by the traced backend\n', compiled: false }] };
    },
    compile: (r) => {
      calls.push(`compile ${r.sources.map((s) => path.basename(s)).join(' ')}`);
      return backends.cpu.compile(r);
    },
  };
  const { entry } = await build(toolsetWith(traced), 'custom', 'build');
  assert.equal(calls, ['identity', 'generate', 'compile orch_diffuse.cpp']);
  assert.ok(entry.dir && existsSync(path.join(entry.dir, 'traced.txt')), 'the backend\'s extra file is in the cache entry');
  const memory = JSON.parse(readFileSync(path.join(entry.dir!, 'memory.json'), 'utf8'));
  assert.is(memory.totals.arg.note, 'traced args');
  assert.ok(memory.arrays.every((a: { storage: string }) => a.storage === 'device'));
});

test.run();
