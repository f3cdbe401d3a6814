import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Compiler, type BuildRequest, type EntryResult } from '../core/Compiler.js';
import type { ResolvedConfig } from '../core/config/types.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { caseCall, caseInputs, caseRequest, conformanceCases, fixtureModules, FIXTURES_DIR, type ConformanceCase } from './conformanceKit.js';
import { readCaseSpec } from './caseFolder.js';
import { fixtureCall, type EntryCall } from './deviceRuns.js';
import { parseExternals } from '../core/frontend/externalsJson.js';

/**
 * The entries the GPU tests build: every conformance case, every language fixture, and
 * every entry of every other fixture module, each with the call it is checked with.
 */

/**
 * Entries the CPU builds but the CUDA backend refuses, each with the located diagnostic it
 * must give instead (none now: halo exchanges stage device arrays through the host).
 */
export const CUDA_GAPS: Record<string, string> = {};

export interface GpuJob {
  /** Test name: the case, or the fixture module and entry. */
  name: string;
  request: Omit<BuildRequest, 'mode'>;
  case?: ConformanceCase;
  /** The call to check with, once the IR is known. */
  callFor(entry: EntryResult): EntryCall;
}

const FIXTURE_SHAPE: [number, number, number] = [12, 11, 6];

export async function gpuJobs(config: ResolvedConfig): Promise<GpuJob[]> {
  const jobs: GpuJob[] = conformanceCases().map((c) => ({
    name: c.name,
    request: caseRequest(c),
    case: c,
    callFor: (e) => ({ iface: e.iface!, program: e.program!, inputs: caseInputs(c), call: caseCall(c) }),
  }));
  // orch's language fixtures are case folders like the conformance kit's, their expected
  // outputs from numpy references
  const language = path.join(FIXTURES_DIR, 'language');
  for (const name of readdirSync(language).sort()) {
    const dir = path.join(language, name);
    if (!existsSync(path.join(dir, 'case.json'))) continue;
    const c: ConformanceCase = { name: `language ${name}`, dir, spec: readCaseSpec(dir) };
    jobs.push({ name: c.name, request: caseRequest(c), case: c, callFor: (e) => ({ iface: e.iface!, program: e.program!, inputs: caseInputs(c), call: caseCall(c) }) });
  }
  // Fixture modules may hold several entries: list them with an IR-only build.
  const lister = new Compiler(config, { verifyIR: false, printIrAfter: [], timePasses: false, stopAfter: 'parse', print: () => undefined });
  // Not callable generically here: fixtures/layouts needs a layout's region externals
  // (the layout tests build it per code path); fixtures/programs calls Python callbacks on
  // shape-specific fields (the Python package tests run it); fixtures/language holds case
  // folders with their own externals and inputs, and fixtures/rejections modules that must
  // fail (both run by the language tests).
  const generic = fixtureModules().filter((f) => !/[\\/]fixtures[\\/](layouts|programs|language|rejections)[\\/]/.test(f));
  for (const file of generic) {
    // pass fixtures may carry their externals beside the module
    const sidecar = path.join(path.dirname(file), 'externals.json');
    const externals = existsSync(sidecar) ? parseExternals(readFileSync(sidecar, 'utf8')) : {};
    const listed = await lister.build({ modules: [file], externals, defines: {}, mode: 'python' });
    const rel = path.relative(path.dirname(path.dirname(file)), file);
    for (const e of listed.entries) {
      jobs.push({
        name: `fixture ${rel}:${e.entry}`,
        request: { modules: [file], entry: e.entry, externals, defines: {} },
        callFor: (built) => fixtureCall(built.iface!, built.program!, FIXTURE_SHAPE),
      });
    }
  }
  return jobs;
}

/** Runs `fn` over `items` with at most `limit` at a time; results in input order, started eagerly. */
export function eagerLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R>[] {
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    running--;
    queue.shift()?.();
  };
  return items.map(
    (item) =>
      new Promise<R>((resolve, reject) => {
        const start = () => {
          running++;
          fn(item).then(resolve, reject).finally(release);
        };
        if (running < limit) start();
        else queue.push(start);
      }),
  );
}

/** Concurrency for compiler-bound test jobs: ORCH_TEST_JOBS, else the machine's cores (at most 4). */
export function testConcurrency(): number {
  const env = Number(process.env.ORCH_TEST_JOBS);
  return Number.isInteger(env) && env > 0 ? env : Math.min(4, Math.max(1, availableParallelism()));
}

/** The IR after the last pass before codegen, as the backends see it; or the diagnostics that stop it. */
export async function entryIR(config: ResolvedConfig, request: Omit<BuildRequest, 'mode'>): Promise<{ entry?: EntryResult; errors: Diagnostic[] }> {
  const compiler = new Compiler({ ...config, verifyIR: true }, { verifyIR: true, printIrAfter: [], timePasses: false, stopAfter: 'debugInsertion', print: () => undefined });
  const r = await compiler.build({ ...request, mode: 'python' });
  return r.errors.length ? { errors: r.errors } : { entry: r.entries[0], errors: [] };
}
