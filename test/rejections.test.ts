import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatDiagnostic, type Diagnostic } from '../core/diagnostics.js';
import { allocate, type NDArray } from '../core/runtime/ndarray.js';
import { EntryRunner } from './entryRunner.js';

/**
 * What orch rejects (docs/language.md), one folder per case under fixtures/rejections:
 * `module.py`, `case.json` ({entry, externals?, run?}) and `expected.txt`, the whole
 * diagnostic as the CLI prints it (code, message, file:line:col, frame, hint), with the
 * case folder written `<dir>`. Cases with `run` are rejected when called with that domain:
 * the interpreter and the compiled library must both report exactly `expected.txt`.
 * ORCH_UPDATE_FIXTURES=1 rewrites the expectations (review the diff).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../fixtures/rejections');

interface CaseSpec {
  entry: string;
  externals?: Record<string, unknown>;
  run?: { domain: number[]; origin: number[]; fields: Record<string, number[]>; scalars?: Record<string, number>; dtypes?: Record<string, string>; fill?: Record<string, number> };
}

const runner = await EntryRunner.create();
const rejections = suite('rejections');

function text(d: Diagnostic, dir: string): string {
  return `${formatDiagnostic(d).replaceAll(dir, '<dir>')}\n`;
}

function expect(dir: string, got: string): void {
  const file = path.join(dir, 'expected.txt');
  if (process.env.ORCH_UPDATE_FIXTURES === '1' || !existsSync(file)) writeFileSync(file, got);
  assert.fixture(got, readFileSync(file, 'utf8'));
}

for (const name of readdirSync(root).sort()) {
  const dir = path.join(root, name);
  const spec = JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8')) as CaseSpec;
  const module = path.join(dir, 'module.py');
  const externals = JSON.stringify(spec.externals ?? {});
  rejections(name, async () => {
    if (!spec.run) {
      expect(dir, text(await runner.buildError(module, spec.entry, externals), dir));
      return;
    }
    const built = await runner.build(module, spec.entry, 'python', externals);
    const fields: Record<string, NDArray> = {};
    for (const [f, shape] of Object.entries(spec.run.fields)) {
      const decl = built.iface!.params.find((p) => p.name === f)!;
      const a = allocate(decl.dtype, shape);
      const fill = spec.run.fill?.[f];
      for (let n = 0; n < a.data.length; n++) {
        const v = fill ?? (n % 7) * 0.25;
        if (a.data instanceof BigInt64Array) a.data[n] = BigInt(Math.trunc(v));
        else a.data[n] = v;
      }
      fields[f] = a;
    }
    const { interpreted, compiled } = await runner.runBoth(module, spec.entry, { fields, scalars: spec.run.scalars ?? {}, domain: spec.run.domain, origin: spec.run.origin }, externals);
    assert.ok('error' in interpreted, 'the interpreter must reject the call');
    assert.ok('error' in compiled, 'the compiled library must reject the call');
    if (!('error' in interpreted) || !('error' in compiled)) return;
    const got = text(interpreted.error, dir);
    assert.fixture(text(compiled.error, dir), got, 'compiled and interpreted runs report the same diagnostic');
    expect(dir, got);
  });
}

rejections.run();
