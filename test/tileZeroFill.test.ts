import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import { launches } from '../core/ir/visit.js';
import { buildEntryArgs } from '../core/runtime/callArgs.js';
import { cloneArray } from '../core/runtime/ndarray.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';

/**
 * Issue 18 item 5: a tile-local temporary written at every point before a region rewrites
 * some of them (PPM's edge values) needs no zero fill per tile. The fill was a fifth of the
 * instructions of ppm_advection's call at 12x12x79 (callgrind).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures/bench');
const cacheRoot = mkdtempSync(path.join(os.tmpdir(), 'orch-zerofill-'));
const base = { ...(await resolveConfig({ configFile: null, cwd: cacheRoot })), cacheRoot };

async function build(entry: string, tiling: boolean) {
  const config = { ...base, passes: { ...base.passes, tiling } };
  const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
  const r = await compiler.build({ modules: [path.join(fixtures, `${entry}.py`)], entry, externals: {}, defines: {}, mode: 'python' });
  if (r.errors.length) throw new Error(formatDiagnostic(r.errors[0]));
  return r.entries[0];
}

const t = suite('tile zero fill');

t('ppm_advection: the edge values written before their region are not zero-filled per tile', async () => {
  const e = await build('ppm_advection', true);
  const local = launches(e.program!.body).flatMap((l) => l.tile?.local ?? []);
  const al = local.find((x) => x.name.endsWith('_al'));
  assert.ok(al, `a tile-local edge value array among ${local.map((x) => x.name).join(', ')}`);
  assert.is(al!.zeroFill, false);
});

t('ppm_advection: tiled without the fill gives the untiled results bitwise (the interpreter fills temporaries with NaN)', async () => {
  const shape = [23, 41, 3];
  const results = [];
  let inputs;
  for (const tiling of [false, true]) {
    const e = await build('ppm_advection', tiling);
    inputs ??= syntheticInputs(e.iface!, shape, {});
    const fields = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, cloneArray(v)]));
    new Interpreter(e.program!).run(buildEntryArgs(e.iface!, { fields, scalars: { dt: 0.1 } }));
    results.push(fields.flux);
  }
  const [a, b] = results;
  let nan = 0;
  for (let n = 0; n < a.data.length; n++) {
    const x = Number(a.data[n]);
    const y = Number(b.data[n]);
    if (Number.isNaN(y) && !Number.isNaN(x)) nan++;
    else if (!(x === y || (Number.isNaN(x) && Number.isNaN(y)))) assert.unreachable(`flux[${n}] is ${y} tiled, ${x} untiled`);
  }
  assert.is(nan, 0, 'no point reads an unwritten (NaN) edge value');
});

t.run();
