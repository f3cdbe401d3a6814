import { copyFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { generateCpp } from '../plugins/codegen/generateCpp.js';

/**
 * Issue 18 item 5: the last tile along I and J takes the remainder of the domain (up to
 * twice the tile) instead of a tile of its own, whose halo is over-computed again
 * (ppm_advection at 12x12x79 ran one 4x6 and one 2x6 tile: 9% more instructions than one
 * 6x6 tile). K keeps its cut. The numbers must not move: native runs with remainders along
 * I and J (and in-place versioned tiles, whose bands sit at the cuts) match the interpreter.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const orchBin = path.resolve(here, '../bin/orch.js');

/** The generated C++ of a bench fixture, with the preset's tile or the one given. */
async function source(entry: string, tile?: [number, number, number]): Promise<string> {
  const config = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-remainder-')) });
  if (tile) config.codegen = { ...config.codegen, tile };
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [path.join(fixtures, `${entry}.py`)], entry, externals: {}, defines: {}, mode: 'python' });
  assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
  return generateCpp(r.entries[0].program!, config.codegen).source;
}

const t = suite('tile remainder');

t('the tile count rounds down along I and J (the last tile takes the remainder), and up along K', async () => {
  // 4x32x16 (an orch tune candidate) shows both roundings; the default 4x32 cuts no K
  const src = await source('ppm_advection', [4, 32, 16]);
  assert.ok(src.includes('const int64_t nti = std::max<int64_t>(1, dom0 / 4), ntj = std::max<int64_t>(1, dom1 / 32), ntk = std::max<int64_t>(1, (dom2 + 15) / 16);'), 'ppm: 4x32x16 tiles, remainders merged along I and J');
  assert.ok(src.includes('ihi_0_0 = ti == nti - 1 ? Ihi_0_0 :'), 'the last tile runs to the end of the domain');
});

const project = mkdtempSync(path.join(os.tmpdir(), 'orch-remainder-run-'));
for (const f of ['ppm_advection', 'deln_damping', 'hdiff']) copyFileSync(path.join(fixtures, `${f}.py`), path.join(project, `${f}.py`));

// shapes whose domains (shape - 6 along I and J) leave remainders: 6x6 (one tile of 6),
// 11x39 (tiles of 4 and 7 along I, one of 39 along J), 13x70 (4, 4, 5 by 32 and 38)
const CASES: [string, Record<string, number>][] = [
  ['ppm_advection', { dt: 0.1 }],
  ['deln_damping', { damp: 0.05 }],
  ['hdiff', { dt: 0.01 }],
];
for (const [entry, scalars] of CASES) {
  t(`${entry}: native runs with remainder tiles match the interpreter bit for bit`, async () => {
    for (const shape of ['12,12,5', '17,45,3', '19,76,2']) {
      const r = await execa(process.execPath, [orchBin, 'run', `${entry}.py:${entry}`, '--mode', 'build-and-run', '--shape', shape, '--scalars', JSON.stringify(scalars), '--check'], {
        cwd: project,
        env: { GT_CACHE_ROOT: project, OMP_NUM_THREADS: '2' },
        reject: false,
      });
      assert.is(r.exitCode, 0, `${entry} at ${shape}:\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /check against the interpreter: match \(max abs diff 0\.00e\+0,/, `${entry} at ${shape}: ${r.stdout}`);
    }
  });
}

t.run();
