import { statSync } from 'node:fs';
import { formatDiagnostic, OrchError, OrchErrors, type Diagnostic } from '../core/diagnostics.js';
import { internalError } from '../core/diagnostics/codes.js';
import { EntryRunner, type ReadyEntry } from '../core/runtime/EntryRunner.js';
import { buildEntryArgs, type CallSpec } from '../core/runtime/callArgs.js';
import { jsonDiagnostic, openSession, parseTarget, type CommonOptions } from './session.js';
import { closureValue, type ClosureValue } from '../core/frontend/closure.js';
import { changedArrays, encodeFrame, frameArrays, readFrames } from './serveFrames.js';
import { serveNeedsEntry } from '../core/diagnostics/usageErrors.js';

/** One request (a frame's header; its fields travel as the frame's arrays): run `target` once on the interpreter. */
interface ServeRequest {
  id: number;
  target: string;
  scalars?: Record<string, number | boolean>;
  origin?: CallSpec['origin'];
  domain?: number[];
  /** Externals the stencil object was made with (`gtscript.stencil(..., externals=)`, a FrozenStencil's), tagged as in a closure. */
  externals?: Record<string, ClosureValue>;
  /** Only describe the entry: the answer carries its interface (fields, axes, scalars) and nothing runs. */
  describe?: boolean;
}

/** An entry lowered once, with what it was lowered from: the files it read, stamped. */
interface Lowered {
  stamps: string;
  files: string[];
  ready: ReadyEntry;
}

/** mtime and size of each file: a changed or removed file changes the stamp. */
function stampOf(files: string[]): string {
  return files
    .map((f) => {
      try {
        const s = statSync(f);
        return `${s.mtimeMs}:${s.size}`;
      } catch {
        return 'gone';
      }
    })
    .join(' ');
}

/**
 * `orch serve`: a long-lived reference interpreter for hosts that call stencils and
 * programs many times (the Python package's Python mode when GT4Py is not installed).
 * Requests and answers are frames on stdin/stdout (cli/serveFrames.ts): the fields travel
 * as raw bytes, and each answer carries back the fields the call changed. Each entry is
 * lowered once per (target, externals) and again only when a file it read changes (the
 * session's defines are fixed), so only the first call of an entry parses.
 */
export async function serveCommand(opts: CommonOptions): Promise<number> {
  // stdout carries the answer frames: anything a plugin logs goes to stderr instead
  console.log = console.error;
  console.info = console.error;
  const session = await openSession(opts);
  const runner = new EntryRunner(session.compiler);
  const entries = new Map<string, Lowered>();
  const entry = async (target: string, given: Record<string, ClosureValue> = {}): Promise<ReadyEntry> => {
    const id = `${target} ${JSON.stringify(given)}`;
    const known = entries.get(id);
    if (known && stampOf(known.files) === known.stamps) return known.ready;
    const [file, name] = parseTarget(target);
    if (!name) throw serveNeedsEntry(target);
    const externals = { ...session.externals };
    for (const [k, v] of Object.entries(given)) externals[k] = closureValue(v);
    const fresh = await new EntryRunner(session.compiler, { externals, defines: session.defines }).prepare(file, name, 'python');
    // stamped before the next request reads them: an edit after this lowering is seen
    const files = fresh.result.files.length ? fresh.result.files : [file];
    entries.set(id, { files, stamps: stampOf(files), ready: fresh });
    return fresh;
  };
  const answer = (header: Record<string, unknown>, arrays = {}) => process.stdout.write(encodeFrame(header, arrays));
  try {
    for await (const frame of readFrames(process.stdin)) {
      const req = frame.header as unknown as ServeRequest;
      try {
        const ready = await entry(req.target, req.externals);
        if (req.describe) {
          answer({ id: req.id, ok: true, interface: ready.iface });
          continue;
        }
        const fields = frameArrays(frame);
        runner.run(ready, buildEntryArgs(ready.iface, { fields, scalars: req.scalars ?? {}, origin: req.origin, domain: req.domain }));
        answer({ id: req.id, ok: true }, changedArrays(frame, fields));
      } catch (e) {
        const diags: Diagnostic[] = e instanceof OrchError ? [e.diagnostic] : e instanceof OrchErrors ? e.diagnostics : [internalError((e as Error)?.stack ?? String(e)).diagnostic];
        // the text as orch prints it, and the diagnostics as data (as --json gives them) for the package to raise its own way
        answer({ id: req.id, ok: false, error: diags.map((d) => formatDiagnostic(d)).join('\n\n'), diagnostics: diags.map(jsonDiagnostic) });
      }
    }
  } catch (e) {
    if (!(e instanceof OrchError)) throw e;
    session.err(formatDiagnostic(e.diagnostic));
    return 1;
  }
  return 0;
}
