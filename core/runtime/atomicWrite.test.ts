import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileAtomic } from './atomicWrite.js';

function folder(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'orch-atomic-'));
}

test('a write that fails (a full disk) leaves no temporary file and the old content', () => {
  const dir = folder();
  const file = path.join(dir, 'latest.json');
  writeFileSync(file, 'old');
  const full = {
    // writes part of the data, then fails as a full disk does
    writeFileSync(f: string, data: string | Uint8Array) {
      writeFileSync(f, String(data).slice(0, 2));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    },
    renameSync() {
      throw new Error('not reached');
    },
  };
  assert.throws(() => writeFileAtomic(file, 'new content', full), /ENOSPC/);
  assert.equal(readdirSync(dir), ['latest.json']);
  assert.is(readFileSync(file, 'utf8'), 'old');
});

test('a rename onto a folder (EISDIR) leaves no temporary file', () => {
  const dir = folder();
  const file = path.join(dir, 'out.npy');
  mkdirSync(file);
  assert.throws(() => writeFileAtomic(file, 'data'), (e: NodeJS.ErrnoException) => e.code === 'EISDIR' || e.code === 'ENOTEMPTY' || e.code === 'EEXIST');
  assert.equal(readdirSync(dir), ['out.npy']);
});

test('a write that succeeds replaces the file', () => {
  const dir = folder();
  const file = path.join(dir, 'a.json');
  writeFileAtomic(file, '1');
  writeFileAtomic(file, '2');
  assert.equal(readdirSync(dir), ['a.json']);
  assert.is(readFileSync(file, 'utf8'), '2');
});

test.run();
