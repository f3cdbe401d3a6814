import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { describeOwner, EntryLock, type LockOwner } from './EntryLock.js';

/** Stuck locks never make a build wait for the full timeout (issue 12, item 5). */

function heldLock(owner: string | undefined, mtime?: Date): string {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'orch-lock-')), '.lock');
  mkdirSync(dir);
  if (owner !== undefined) writeFileSync(path.join(dir, 'owner.json'), owner);
  if (mtime) utimesSync(dir, mtime, mtime);
  return dir;
}

const tomorrow = () => new Date(Date.now() + 24 * 3600 * 1000);

/** Acquires with a short staleness; returns how long it took and what the waiter was told. */
async function take(dir: string, staleMs = 400) {
  const lock = new EntryLock(dir, staleMs, 50);
  const told: string[] = [];
  const t0 = Date.now();
  await lock.acquire((owner, since) => told.push(`${describeOwner(owner)} since ${since?.toISOString()}`), 5000);
  const ms = Date.now() - t0;
  lock.release();
  return { ms, told };
}

test('a lock folder with no owner file and a future mtime is broken after a missed heartbeat', async () => {
  const { ms, told } = await take(heldLock(undefined, tomorrow()));
  assert.ok(ms < 4000, `${ms} ms`);
  assert.match(told[0], 'a process that left no valid owner file since');
});

test('a garbled owner file is not trusted: the waiting message says so, and the lock goes stale', async () => {
  const { ms, told } = await take(heldLock('{"pid":"x"}'));
  assert.ok(ms < 4000, `${ms} ms`);
  assert.not.match(told[0], 'undefined');
  assert.match(told[0], 'no valid owner file');
});

test('an owner pid on this host now used by an unrelated process (another start time) is gone at once', async () => {
  const owner: LockOwner = { pid: process.ppid, host: os.hostname(), time: Date.now(), start: '1' };
  const { ms } = await take(heldLock(JSON.stringify(owner)), 60_000);
  assert.ok(ms < 2000, `${ms} ms: judged by the pid's start time, not the heartbeat`);
});

test('a remote owner whose clock is ahead goes stale when its heartbeat stops', async () => {
  const owner: LockOwner = { pid: 4242, host: 'elsewhere.example', time: tomorrow().getTime() };
  const { ms, told } = await take(heldLock(JSON.stringify(owner), tomorrow()));
  assert.ok(ms < 4000, `${ms} ms`);
  assert.match(told[0], `pid 4242 on elsewhere.example since ${new Date(owner.time).toISOString()}`);
});

test('a remote owner that keeps its heartbeat keeps the lock', async () => {
  const owner: LockOwner = { pid: 4242, host: 'elsewhere.example', time: Date.now() };
  const dir = heldLock(JSON.stringify(owner));
  const beat = setInterval(() => utimesSync(dir, new Date(), new Date()), 50);
  try {
    const lock = new EntryLock(dir, 400, 50);
    await lock.acquire(undefined, 1500);
    assert.unreachable('the lock of a live owner was taken');
  } catch (e) {
    assert.match(String((e as Error).message), 'timed out waiting for the lock');
  } finally {
    clearInterval(beat);
  }
});

test('a live holder in this process refreshes its heartbeat while it holds the lock', async () => {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'orch-lock-')), '.lock');
  const holder = new EntryLock(dir, 400, 50);
  await holder.acquire();
  const other = new EntryLock(dir, 400, 50);
  let took = false;
  const waiting = other.acquire(undefined, 60_000).then(() => (took = true));
  await new Promise((r) => setTimeout(r, 1200));
  assert.not.ok(took, 'the holder is alive: its lock is not broken');
  holder.release();
  await waiting;
  other.release();
});

test.run();
