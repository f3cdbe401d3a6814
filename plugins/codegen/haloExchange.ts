import type { HaloStmt, PStmt, Program } from '../../core/ir/types.js';
import { cString, locText, STORAGE } from './cText.js';
import type { Writer } from './Writer.js';
import { forEachPStmt } from '../../core/ir/visit.js';

/**
 * C++ of a program's halo exchanges: calls into native/orch_halo.h, which packs the
 * strips, posts MPI_Isend/MPI_Irecv to the layout's neighbours and unpacks (or, built
 * without MPI, exchanges a single rank with itself).
 */

function haloStatements(body: readonly PStmt[], out: HaloStmt[] = []): HaloStmt[] {
  forEachPStmt(body, (s) => {
    if (s.kind === 'halo') out.push(s);
  });
  return out;
}

/** Members of the library handle: the run's topology and one slot per exchange. */
export function haloHandleMembers(program: Program): string[] {
  const halos = haloStatements(program.body);
  if (!halos.length) return [];
  const slots = Math.max(...halos.map((s) => s.exchange)) + 1;
  return ['orch::halo::Topology halo_topology;', `orch::halo::Exchange halo_exchange[${slots}];`];
}

export function haloIncludes(program: Program): string[] {
  return haloStatements(program.body).length ? ['#include "orch_halo.h"'] : [];
}

/** One halo statement; `view(name)` is the C++ orch_array of a program array. */
export function emitHalo(w: Writer, program: Program, s: HaloStmt, view: (name: string) => string): void {
  const arrays = new Map(program.arrays.map((a) => [a.name, a]));
  const where = cString(`${s.phase === 'update' ? 'halo_update' : `halo_update_${s.phase}`} at ${locText(s.loc)}`);
  const fields = s.fields.map((name) => {
    const a = arrays.get(name);
    if (!a) throw new Error(`halo exchange of unknown array '${name}'`);
    return `{${view(name)}, ${a.axes.length}, (int)sizeof(${STORAGE[a.dtype]}), ${cString(name)}}`;
  });
  const slot = `h->halo_exchange[${s.exchange}]`;
  const args = `st, h->halo_topology, ${slot}, fields, ${fields.length}, ${s.width}, ${s.halo}`;
  w.open(`{  // halo ${s.phase} #${s.exchange} (${s.fields.join(', ')})`);
  w.line(`const orch::halo::Field fields[${fields.length}] = {${fields.join(', ')}};`);
  // a blocking update exchanges in place (derived datatypes): nothing runs before its wait
  if (s.phase !== 'wait') w.line(`if (orch::halo::start(${args}, ${s.exchange}, ${where}${s.phase === 'update' ? ', true' : ''})) return 1;`);
  if (s.phase !== 'start') w.line(`if (orch::halo::wait(${args}, ${where})) return 1;`);
  w.close();
}
