import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler } from '../Compiler.js';
import { OrchError } from '../diagnostics.js';
import { normalizeCudaArch, resolveCudaArch } from './cudaArch.js';
import { resolveConfig } from './loadConfig.js';

function code(fn: () => unknown): Promise<string> {
  return Promise.resolve()
    .then(fn)
    .then(
      () => 'no error',
      (e) => (e instanceof OrchError ? e.diagnostic.code : `not an OrchError: ${e}`),
    );
}

test('architectures in any usual spelling become sm_XY', () => {
  assert.is(normalizeCudaArch('sm_90', 'x'), 'sm_90');
  assert.is(normalizeCudaArch('90', 'x'), 'sm_90');
  assert.is(normalizeCudaArch('9.0', 'x'), 'sm_90');
  assert.is(normalizeCudaArch('compute_80', 'x'), 'sm_80');
  assert.is(normalizeCudaArch('SM_90A', 'x'), 'sm_90a');
  assert.is(normalizeCudaArch('8.0, 9.0 9.0', 'x'), 'sm_80,sm_90');
});

test('a malformed architecture is an error naming where it came from', async () => {
  assert.is(await code(() => normalizeCudaArch('hopper', '$CUDA_ARCH')), 'E_CUDA_ARCH');
  try {
    normalizeCudaArch('sm_9', '$CUDA_ARCH');
    assert.unreachable('sm_9 was accepted');
  } catch (e) {
    assert.match((e as Error).message, /'sm_9' from \$CUDA_ARCH/);
  }
});

test('a preset architecture wins; auto reads $CUDA_ARCH, then nvidia-smi', async () => {
  const never = async (): Promise<string[] | null> => {
    throw new Error('nvidia-smi must not be asked');
  };
  assert.equal(await resolveCudaArch('sm_80', { CUDA_ARCH: 'sm_90' }, never), { arch: 'sm_80', source: 'preset' });
  assert.equal(await resolveCudaArch('auto', { CUDA_ARCH: '9.0' }, never), { arch: 'sm_90', source: '$CUDA_ARCH' });
  assert.equal(await resolveCudaArch(undefined, {}, async () => ['8.0', '8.0']), { arch: 'sm_80', source: 'nvidia-smi' });
  assert.equal(await resolveCudaArch('auto', {}, async () => ['9.0', '8.0']), { arch: 'sm_90,sm_80', source: 'nvidia-smi' });
});

test('auto with neither $CUDA_ARCH nor nvidia-smi is an error with a way out', async () => {
  try {
    await resolveCudaArch('auto', {}, async () => null);
    assert.unreachable('resolved without a source');
  } catch (e) {
    assert.instance(e, OrchError);
    assert.is((e as OrchError).diagnostic.code, 'E_CUDA_ARCH');
    assert.match((e as OrchError).diagnostic.hint ?? '', /CUDA_ARCH=sm_90.*cuda-h100/);
  }
});

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
