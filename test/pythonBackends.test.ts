import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO } from './TempProject.js';

/** `backend=` in @gtscript.stencil(...) selects Python mode or a preset; an unknown name is an error. */

const backends = suite('python backends');

backends('numpy means Python mode, the CPU names the cpu preset, the GPU names cuda, others an error', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-backends-'));
  const r = await execa('python3', [path.join(REPO, 'test/python/check_backends.py')], {
    cwd: dir,
    reject: false,
    env: { PYTHONPATH: path.join(REPO, 'python'), GT_CACHE_ROOT: dir, ORCH_MODE: 'build-and-run' },
  });
  assert.is(r.exitCode, 0, String(r.stderr));
  assert.fixture(
    String(r.stdout),
    [
      'numpy build-and-run 36.0 []',
      'debug build-and-run 36.0 []',
      'gt:cpu_ifirst cpu',
      'gt:cpu_kfirst cpu',
      'dace:cpu cpu',
      'gt:gpu cuda',
      'dace:gpu cuda',
      'cuda cuda',
      "UnknownBackendError True unknown backend 'gt:gpuu': did you mean 'gt:gpu'? orch knows numpy and debug (Python mode), gt:cpu_ifirst, gt:cpu_kfirst, dace:cpu (the cpu preset), gt:gpu, dace:gpu and cuda (the cuda preset)",
    ].join('\n'),
  );
});

backends.run();
