import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveConfig } from '../cli/toolset.js';
import { Compiler } from '../core/Compiler.js';

test('the generic cuda preset keys its builds by the resolved architecture', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-cuda-arch-'));
  const module = path.join(dir, 'scale.py');
  writeFileSync(
    module,
    [
      'from gt4py.cartesian.gtscript import PARALLEL, computation, interval',
      'from ndsl.dsl.typing import Float, FloatField',
      '',
      'def scale(q: FloatField, out: FloatField, a: Float):',
      '    with computation(PARALLEL), interval(...):',
      '        out = a * q',
      '',
    ].join('\n'),
  );
  const saved = process.env.CUDA_ARCH;
  const withArch = async (arch: string, mode: 'build' | 'lookup') => {
    process.env.CUDA_ARCH = arch;
    const config = await resolveConfig({ configFile: null, cwd: dir, preset: 'cuda' });
    config.cacheRoot = dir;
    const compiler = new Compiler(config, { verifyIR: false, printIrAfter: [], timePasses: false, print: () => undefined });
    return compiler.build({ modules: [module], entry: 'scale', externals: {}, defines: {}, mode });
  };
  try {
    const built = await withArch('sm_80', 'build');
    assert.is(built.errors.length, 0, built.errors.map((d) => d.message).join('\n'));
    assert.is((await withArch('8.0', 'lookup')).entries[0].status, 'hit', 'the same architecture hits');
    const other = (await withArch('sm_90', 'lookup')).entries[0];
    assert.is(other.status, 'miss', 'another architecture misses');
    assert.match(other.reason ?? '', /compiler changed/);
  } finally {
    if (saved === undefined) delete process.env.CUDA_ARCH;
    else process.env.CUDA_ARCH = saved;
  }
});

test.run();
