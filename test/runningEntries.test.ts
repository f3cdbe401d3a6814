import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveConfig } from '../cli/toolset.js';
import { Compiler } from '../core/Compiler.js';
import { OrchErrors } from '../core/diagnostics.js';
import { buildEntryArgs } from '../core/runtime/callArgs.js';
import { EntryRunner } from '../core/runtime/EntryRunner.js';
import { allocate } from '../core/runtime/ndarray.js';

const MODULE = `from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl.dsl.typing import Float, FloatField


def scale(a: FloatField, b: FloatField, w: Float):
    with computation(PARALLEL), interval(...):
        b = w * a + b
`;

async function runner(): Promise<[EntryRunner, string]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-entry-runner-'));
  const file = path.join(dir, 'm.py');
  writeFileSync(file, MODULE);
  const config = await resolveConfig({ configFile: null, cwd: dir });
  config.cacheRoot = dir;
  return [new EntryRunner(new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined })), file];
}

test('python mode: the interpreter runs once on args, then repeat times on scratch, timing only those', async () => {
  const [r, file] = await runner();
  const entry = await r.prepare(file, 'scale', 'python');
  assert.ok(entry.program, 'python mode carries the IR');
  assert.is(entry.result.library, undefined);
  const field = (v: number) => {
    const f = allocate('float64', [2, 2, 2]);
    (f.data as Float64Array).fill(v);
    return f;
  };
  const args = buildEntryArgs(entry.iface, { fields: { a: field(2), b: field(1) }, scalars: { w: 3 } });
  const scratch = buildEntryArgs(entry.iface, { fields: { a: field(2), b: field(0) }, scalars: { w: 3 } });
  const times = r.run(entry, args, { scratch, repeat: 3 });
  assert.is(times.length, 3);
  assert.equal([...(args.b as { data: Float64Array }).data], Array(8).fill(7), 'one call on args: 3 * 2 + 1');
  assert.equal([...(scratch.b as { data: Float64Array }).data], Array(8).fill(18), 'three calls on scratch accumulate');
  assert.ok(r.passTimes.get('simplify2:orch:fusion') !== undefined, 'the runner keeps the pass times of its builds');
});

test('an entry that does not build is thrown as its diagnostics', async () => {
  const [r, file] = await runner();
  try {
    await r.prepare(file, 'scal', 'python');
    assert.unreachable('prepare must throw');
  } catch (e) {
    assert.instance(e, OrchErrors);
    assert.is((e as OrchErrors).diagnostics[0].code, 'E_ENTRY_NOT_FOUND');
  }
});

test.run();
