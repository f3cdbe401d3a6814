import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OrchError } from '../diagnostics.js';
import { normalizeCudaArch, resolveCudaArch } from './cudaArch.js';

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

test.run();
