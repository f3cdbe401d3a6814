import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';

/** Writes through a temporary sibling and a rename, so readers never see half a file. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}
