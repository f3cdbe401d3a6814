import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';

/** The two file operations an atomic write makes (tests inject failing ones). */
export interface AtomicWriteIO {
  writeFileSync(file: string, data: string | Uint8Array): void;
  renameSync(from: string, to: string): void;
}

const nodeIO: AtomicWriteIO = { writeFileSync, renameSync };

/**
 * Writes through a temporary sibling and a rename, so readers never see half a file. A
 * failed write or rename (a full disk, a folder in the way) removes the temporary file.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, io: AtomicWriteIO = nodeIO): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    io.writeFileSync(tmp, data);
    io.renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
