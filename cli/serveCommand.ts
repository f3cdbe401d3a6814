import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Program } from '../core/ir/types.js';
import { formatDiagnostic, OrchError, OrchErrors, type Diagnostic } from '../core/diagnostics.js';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import { buildEntryArgs, type CallSpec, type EntryInterface } from '../core/runtime/callArgs.js';
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
  const entries = new Map<string, { stamp: number; program: Program; iface: EntryInterface }>();
  const entry = async (target: string, given: Record<string, ClosureValue> = {}) => {
    const [file, name] = parseTarget(target);
    const stamp = statSync(file).mtimeMs;
    const id = `${target} ${JSON.stringify(given)}`;
    const known = entries.get(id);
    if (known && known.stamp === stamp) return known;
    const externals = { ...session.externals };
    for (const [k, v] of Object.entries(given)) externals[k] = closureValue(v);
    const r = await session.compiler.build({ modules: [file], entry: name, externals, defines: session.defines, mode: 'python' });
    const e = r.entries[0];
    if (!e || e.status === 'error' || !e.program || !e.iface) throw new OrchErrors(r.errors);
    const fresh = { stamp, program: e.program, iface: e.iface };
    entries.set(id, fresh);
    return fresh;
  };
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let id = -1;
    try {
      const req = JSON.parse(line) as ServeRequest;
      id = req.id;
      const { program, iface } = await entry(req.target, req.externals);
      const fields: Record<string, NDArray> = {};
      for (const [name, file] of Object.entries(req.in)) fields[name] = readNpy(file);
      const args = buildEntryArgs(iface, { fields, scalars: req.scalars ?? {}, origin: req.origin, domain: req.domain });
      new Interpreter(program).run(args);
      mkdirSync(req.out, { recursive: true });
      for (const [name, value] of Object.entries(fields)) writeNpy(path.join(req.out, `${name}.npy`), value);
      session.out(JSON.stringify({ id, ok: true }));
    } catch (e) {
      const diags: Diagnostic[] = e instanceof OrchError ? [e.diagnostic] : e instanceof OrchErrors ? e.diagnostics : [{ code: 'E_INTERNAL', severity: 'error', message: (e as Error)?.stack ?? String(e) }];
      session.out(JSON.stringify({ id, ok: false, error: diags.map((d) => formatDiagnostic(d)).join('\n\n') }));
    }
  }
  return 0;
}
