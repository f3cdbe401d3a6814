import path from 'node:path';
import { moduleEntries } from '../core/frontend/entries.js';
import { ModuleLoader } from '../core/frontend/ModuleLoader.js';
import { ambiguousTarget } from '../core/diagnostics/usageErrors.js';

/** The one entry of a module targeted without `:entry` (orch run, orch tune); E_USAGE_TARGET when it has none or several. */
export async function soleEntry(pythonPath: string[], file: string): Promise<string> {
  const entries = moduleEntries(new ModuleLoader(pythonPath).load(file)).map((f) => f.name);
  if (entries.length !== 1) {
    throw ambiguousTarget(entries.length ? `${path.basename(file)} has several entries: ${entries.join(', ')}` : `${path.basename(file)} has no stencil or program`, path.basename(file));
  }
  return entries[0];
}
