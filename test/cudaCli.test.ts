import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CudaRuntime } from '../core/runtime/CudaRuntime.js';

/** The CLI with the CUDA presets, as a user runs it on a build machine (with or without a GPU). */

const here = path.dirname(fileURLToPath(import.meta.url));
const orchBin = path.resolve(here, '../../dist/bin/orch.js');

async function orch(args: string[], cwd: string, env: Record<string, string | undefined> = {}) {
  const r = await execa(process.execPath, [orchBin, ...args], { cwd, env: { GT_CACHE_ROOT: cwd, ...env }, reject: false });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function hasGpu(): boolean {
  try {
    return CudaRuntime.open().devices().count > 0;
  } catch {
    return false;
  }
}

const MODULE = [
  'from gt4py.cartesian.gtscript import PARALLEL, computation, interval',
  'from ndsl.dsl.typing import Float, FloatField',
  '',
  'def smooth(a: FloatField, b: FloatField, w: Float):',
  '    with computation(PARALLEL), interval(...):',
  '        b = a + w * (a[1, 0, 0] + a[-1, 0, 0] - 2.0 * a)',
  '',
].join('\n');

const cli = suite('cli with CUDA presets');

cli('orch build --preset cuda-h100 writes host, kernels and library; orch run uses the GPU or says there is none', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-cuda-cli-'));
  writeFileSync(path.join(dir, 'smooth.py'), MODULE);
  const built = await orch(['build', 'smooth.py', '--preset', 'cuda-h100', '--json'], dir);
  assert.is(built.code, 0, built.stderr);
  const entry = JSON.parse(built.stdout).entries[0];
  const files = readdirSync(entry.dir);
  for (const f of ['orch_smooth.cpp', 'orch_smooth.cu', 'orch_smooth_kernels.h', 'liborch_smooth.so']) assert.ok(files.includes(f), `${f} in ${files.join(', ')}`);
  // The memory report says where the arrays live.
  const info = await orch(['info', 'smooth.py'], dir);
  assert.is(info.code, 0, info.stderr);
  assert.match(info.stdout, /memory: 2 array\(s\) in GPU device memory\n {4}arg {7}a float64\[/);
  assert.match(info.stdout, /arg: device memory owned by the caller/);

  const run = await orch(['run', 'smooth.py:smooth', '--preset', 'cuda-h100', '--mode', 'run', '--shape', '12,10,6', '--origin', '1,0,0', '--domain', '10,10,6', '--scalars', '{"w": 0.25}', '--check'], dir);
  if (hasGpu()) {
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stdout, /check against the interpreter: match/);
  } else {
    assert.is(run.code, 1);
    assert.match(run.stderr, /error E_CUDA: .* failed: /);
    assert.match(run.stderr, /hint: CUDA builds run on a machine with an NVIDIA GPU/);
  }
});

cli('the generic cuda preset needs $CUDA_ARCH or nvidia-smi, and builds for what they say', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-cuda-arch-cli-'));
  writeFileSync(path.join(dir, 'smooth.py'), MODULE);
  const smi = await execa('nvidia-smi', ['-L'], { reject: false });
  const auto = await orch(['build', 'smooth.py', '--preset', 'cuda', '--json'], dir, { CUDA_ARCH: undefined });
  if (smi.failed) {
    assert.is(auto.code, 1);
    assert.match(auto.stderr, /E_CUDA_ARCH: cannot tell which GPU to build for/);
  } else {
    assert.is(auto.code, 0, auto.stderr);
  }
  const a100 = await orch(['build', 'smooth.py', '--preset', 'cuda', '--json'], dir, { CUDA_ARCH: '8.0' });
  assert.is(a100.code, 0, a100.stderr);
  const dirOf = JSON.parse(a100.stdout).entries[0].dir as string;
  assert.ok(existsSync(path.join(dirOf, 'build-info.json')));
  const info = JSON.parse((await import('node:fs')).readFileSync(path.join(dirOf, 'build-info.json'), 'utf8'));
  assert.is(info.inputs.compiler.cudaArch, 'sm_80');
  assert.ok(info.command.includes('-arch=sm_80'));
});

cli.run();
