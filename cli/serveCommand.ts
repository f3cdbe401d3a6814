import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fail, formatDiagnostic, OrchError, OrchErrors, type Diagnostic } from '../core/diagnostics.js';
import { internalError } from '../core/diagnostics/codes.js';
import { EntryRunner, type ReadyEntry } from '../core/runtime/EntryRunner.js';
import { buildEntryArgs, type CallSpec } from '../core/runtime/callArgs.js';
import type { NDArray } from '../core/runtime/ndarray.js';
import { readNpy, writeNpy } from '../core/runtime/npy.js';
import { openSession, parseTarget, type CommonOptions } from './session.js';
import { closureValue, type ClosureValue } from '../core/frontend/closure.js';

/** One request on stdin (a JSON line): run `target` once on the interpreter. */
interface ServeRequest {
  id: number;
  target: string;
  /** field name -> .npy path */
  in: Record<string, string>;
  /** folder the fields are written to after the call */
  out: string;
  scalars?: Record<string, number | boolean>;
  origin?: CallSpec['origin'];
  domain?: number[];
  /** Externals the stencil object was made with (`gtscript.stencil(..., externals=)`, a FrozenStencil's), tagged as in a closure. */
  externals?: Record<string, ClosureValue>;
}

/**
 * `orch serve`: a long-lived reference interpreter for hosts that call stencils and
 * programs many times (the Python package's Python mode when GT4Py is not installed).
 * Requests and answers are JSON lines; each entry's IR is lowered once per source version.
 */
export async function serveCommand(opts: CommonOptions): Promise<number> {
  const session = await openSession(opts);
  const runner = new EntryRunner(session.compiler);
  const entries = new Map<string, { stamp: number; ready: ReadyEntry }>();
  const entry = async (target: string, given: Record<string, ClosureValue> = {}): Promise<ReadyEntry> => {
    const [file, name] = parseTarget(target);
    const stamp = statSync(file).mtimeMs;
    const id = `${target} ${JSON.stringify(given)}`;
    const known = entries.get(id);
    if (known && known.stamp === stamp) return known.ready;
    if (!name) fail('E_USAGE_TARGET', `serve needs an entry: got '${target}'`, { hint: 'write path/to/module.py:entry' });
    const externals = { ...session.externals };
    for (const [k, v] of Object.entries(given)) externals[k] = closureValue(v);
    const fresh = await new EntryRunner(session.compiler, { externals, defines: session.defines }).prepare(file, name, 'python');
    entries.set(id, { stamp, ready: fresh });
    return fresh;
  };
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let id = -1;
    try {
      const req = JSON.parse(line) as ServeRequest;
      id = req.id;
      const ready = await entry(req.target, req.externals);
      const fields: Record<string, NDArray> = {};
      for (const [name, file] of Object.entries(req.in)) fields[name] = readNpy(file);
      runner.run(ready, buildEntryArgs(ready.iface, { fields, scalars: req.scalars ?? {}, origin: req.origin, domain: req.domain }));
      mkdirSync(req.out, { recursive: true });
      for (const [name, value] of Object.entries(fields)) writeNpy(path.join(req.out, `${name}.npy`), value);
      session.out(JSON.stringify({ id, ok: true }));
    } catch (e) {
      const diags: Diagnostic[] = e instanceof OrchError ? [e.diagnostic] : e instanceof OrchErrors ? e.diagnostics : [internalError((e as Error)?.stack ?? String(e)).diagnostic];
      session.out(JSON.stringify({ id, ok: false, error: diags.map((d) => formatDiagnostic(d)).join('\n\n') }));
    }
  }
  return 0;
}
