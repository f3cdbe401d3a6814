import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureDir } from './ensureDir.js';

test('creates missing parents', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'orch-ensure-'));
  ensureDir(path.join(root, 'a/b/c'));
  assert.ok(existsSync(path.join(root, 'a/b/c')));
  ensureDir(path.join(root, 'a/b/c'));
});

test('terminates with an error where recursive mkdirSync spins (/proc)', () => {
  assert.throws(() => ensureDir('/proc/orch-no-such/x'), (e: NodeJS.ErrnoException) => e.code === 'ENOENT');
  assert.throws(() => ensureDir('/dev/null/x'), (e: NodeJS.ErrnoException) => e.code === 'ENOTDIR');
});

test.run();
