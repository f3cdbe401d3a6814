import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { Compiler, type EntryResult } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic, OrchError, type Diagnostic } from '../core/diagnostics.js';
import { buildEntryArgs, type CallSpec } from '../core/runtime/callArgs.js';
import { compareArrays } from '../core/runtime/compareArrays.js';
import { cloneArray, type NDArray } from '../core/runtime/ndarray.js';
import { EntryRunner as CoreRunner, ready } from '../core/runtime/EntryRunner.js';
import { parseExternals } from '../core/frontend/externalsJson.js';
import type { ResolvedConfig } from '../core/config/types.js';

/**
 * Runs one entry of a module the two ways orch can (the interpreter, and the compiled
 * library through the cache), for tests that check both against each other and against
 * expected values or diagnostics. One runner per test file: it owns a private cache root.
 */
export class EntryRunner {
  private constructor(private readonly compiler: Compiler) {}

  /** The core's runner with the externals of one test. */
  private runner(externals: string, defines: Record<string, number | boolean> = {}): CoreRunner {
    return new CoreRunner(this.compiler, { externals: parseExternals(externals), defines });
  }

  /** `codegen`: merged over the preset's code generation options (a schedule under test). */
  static async create(opts: { pythonPath?: string[]; codegen?: Partial<ResolvedConfig['codegen']> } = {}): Promise<EntryRunner> {
    const root = mkdtempSync(path.join(os.tmpdir(), 'orch-entry-runner-'));
    const config = await resolveConfig({ configFile: null, cwd: root });
    config.cacheRoot = root;
    if (opts.codegen) config.codegen = { ...config.codegen, ...opts.codegen };
    if (opts.pythonPath) config.pythonPath = [...opts.pythonPath, ...config.pythonPath];
    return new EntryRunner(new Compiler({ ...config, verifyIR: true }, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined }));
  }

  /** Lowers (python mode) or builds an entry; returns its result with errors, if any. */
  async build(module: string, entry: string, mode: 'python' | 'build', externals = '{}', defines: Record<string, number | boolean> = {}): Promise<EntryResult> {
    return this.runner(externals, defines).result(module, entry, mode);
  }

  /** The first diagnostic of building the entry in python mode (fails the test if it builds). */
  async buildError(module: string, entry: string, externals = '{}'): Promise<Diagnostic> {
    const r = await this.build(module, entry, 'python', externals);
    assert.ok(r.errors.length > 0, `${entry} was expected to be rejected, but it builds`);
    return r.errors[0];
  }

  /**
   * Runs the entry interpreted and compiled on copies of `call.fields`; returns both
   * results, or the diagnostic each run raised.
   */
  async runBoth(module: string, entry: string, call: CallSpec, externals = '{}', defines: Record<string, number | boolean> = {}): Promise<{ interpreted: Outcome; compiled: Outcome }> {
    const py = await this.build(module, entry, 'python', externals, defines);
    if (py.errors.length) assert.unreachable(py.errors.map((d) => formatDiagnostic(d)).join('\n'));
    const runner = this.runner(externals, defines);
    const interpreted = outcome(call, (args) => runner.run(ready(py), args), py);
    const built = await this.build(module, entry, 'build', externals, defines);
    if (built.errors.length) assert.unreachable(built.errors.map((d) => formatDiagnostic(d, { verbose: true })).join('\n'));
    return { interpreted, compiled: outcome(call, (args) => runner.run(ready(built), args), built) };
  }

  /** `runBoth`, then checks the two runs agree to `tol` and returns the fields. */
  async runAgreeing(module: string, entry: string, call: CallSpec, externals = '{}', tol = 1e-12, defines: Record<string, number | boolean> = {}): Promise<Record<string, NDArray>> {
    const { interpreted, compiled } = await this.runBoth(module, entry, call, externals, defines);
    if ('error' in interpreted) throw new Error(`interpreter: ${formatDiagnostic(interpreted.error)}`);
    if ('error' in compiled) throw new Error(`compiled: ${formatDiagnostic(compiled.error)}`);
    const cmp = compareArrays(interpreted.fields, compiled.fields);
    assert.ok(cmp.maxAbs <= tol || cmp.maxRel <= tol, `compiled vs interpreter: max abs ${cmp.maxAbs}, max rel ${cmp.maxRel} in ${cmp.worst}`);
    return interpreted.fields;
  }
}

export type Outcome = { fields: Record<string, NDArray> } | { error: Diagnostic };

function outcome(call: CallSpec, run: (args: ReturnType<typeof buildEntryArgs>) => void, entry: EntryResult): Outcome {
  const fields: Record<string, NDArray> = {};
  for (const [k, v] of Object.entries(call.fields)) fields[k] = cloneArray(v);
  try {
    run(buildEntryArgs(entry.iface!, { ...call, fields }));
  } catch (e) {
    if (e instanceof OrchError) return { error: e.diagnostic };
    throw e;
  }
  return { fields };
}
