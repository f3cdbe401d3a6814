import path from 'node:path';
import { writeFileAtomic } from '../core/runtime/atomicWrite.js';
import { resolveModules } from './buildCommand.js';
import { parseDomain } from './infoCommand.js';
import { htmlReport } from './report/htmlReport.js';
import { reportData } from './report/reportData.js';
import { distinctDiagnostics, jsonDiagnostic, openSession, type CommonOptions } from './session.js';
import { printDiagnostics } from './failure.js';
import { noEntriesToReport } from '../core/diagnostics/frontendErrors.js';

export interface ReportOptions extends CommonOptions {
  paths: string[];
  /** NX,NY,NZ of the arguments the memory is sized for. */
  domain: string;
  output: string;
}

/**
 * `orch report`: builds like `orch build` (hits stay hits), then writes one self-contained
 * HTML page with where the time went (per pass, per entry and stage) and where the memory
 * goes for a domain (per array, pooled or not).
 */
export async function reportCommand(opts: ReportOptions): Promise<number> {
  const domain = parseDomain(opts.domain);
  const session = await openSession(opts);
  const modules = await resolveModules(opts.paths, session.config.modules, session.config.root);
  const result = await session.compiler.build({ modules, externals: session.externals, defines: session.defines, mode: 'build' });
  const errors = distinctDiagnostics(result.errors);
  printDiagnostics(errors, opts.verbose);
  const data = reportData([result], { preset: session.config.preset.name, domain });
  // nothing built or found: a page of empty charts would read as a report of nothing
  if (!data.entries.length && errors.length) return 1;
  if (!data.entries.length) throw noEntriesToReport(modules.length === 1 ? modules[0] : `the ${modules.length} modules`, modules.length);
  const output = path.resolve(opts.output);
  writeFileAtomic(output, htmlReport(data));
  if (opts.json) session.out(JSON.stringify({ output, ...data, errors: errors.map(jsonDiagnostic) }));
  else if (!opts.quiet) {
    const hits = data.entries.filter((e) => e.status === 'hit').length;
    session.out(`wrote ${path.relative(process.cwd(), output) || output}: ${data.entries.length} entr${data.entries.length === 1 ? 'y' : 'ies'} (${hits} cache hit(s)), ${data.passes.length} passes timed, memory for ${domain.join('x')}`);
  }
  return errors.length ? 1 : 0;
}
