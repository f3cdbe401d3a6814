import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Hash of a JSON value with sorted keys, so equal inputs give equal keys. */
export function hashJson(value: unknown): string {
  return sha256(stableStringify(value));
}

function stableStringify(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const keys = Object.keys(value as Record<string, unknown>).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * The repository root (where package.json and native/ live): the nearest folder above this
 * compiled file with a package.json. Searched, not counted, because this file runs both
 * from dist/core/cache/ and from the bundled CLI in dist/bin/ (scripts/bundleCli.ts).
 */
export const PACKAGE_ROOT = packageRoot(path.dirname(fileURLToPath(import.meta.url)));

function packageRoot(from: string): string {
  for (let d = from; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, 'package.json'))) return d;
    if (path.dirname(d) === d) throw new Error(`orch: no package.json above ${from}`);
  }
}

function hashTree(dir: string, exts: string[], h = createHash('sha256')): ReturnType<typeof createHash> {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return h;
  }
  for (const n of names) {
    const f = path.join(dir, n);
    const st = statSync(f);
    if (st.isDirectory()) hashTree(f, exts, h);
    else if (exts.some((e) => n.endsWith(e)) && !n.endsWith('.test.js')) {
      h.update(path.relative(PACKAGE_ROOT, f));
      h.update(readFileSync(f));
    }
  }
  return h;
}

let orchVersionMemo: string | undefined;

/** Set by the CLI's bundle (scripts/bundleCli.ts): orchCodeHash() of the code it was built from. */
declare const ORCH_CODE_HASH: string | undefined;

/** A hash of orch's compiled code (dist/core, plugins, presets): a changed pass changes it. */
export function orchCodeHash(): string {
  const h = createHash('sha256');
  for (const d of ['core', 'plugins', 'presets']) hashTree(path.join(PACKAGE_ROOT, 'dist', d), ['.js'], h);
  return h.digest('hex').slice(0, 16);
}

/**
 * orch's own version for cache keys: the package version plus a hash of its compiled
 * code, so a changed pass invalidates entries even without a version bump. The bundled CLI
 * carries the hash of the code it was bundled from, which is the code it runs, instead of
 * reading and hashing ~200 files at every start.
 */
export function orchVersion(): string {
  if (!orchVersionMemo) {
    const pkg = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
    orchVersionMemo = `${pkg.version}+${typeof ORCH_CODE_HASH === 'string' ? ORCH_CODE_HASH : orchCodeHash()}`;
  }
  return orchVersionMemo;
}

export const NATIVE_DIR = path.join(PACKAGE_ROOT, 'native');

const NATIVE_EXTS = ['.h', '.hpp', '.cuh'];

/** The runtime headers generated code includes (watch mode watches them). */
export function nativeHeaderFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const f = path.join(dir, n);
      if (statSync(f).isDirectory()) walk(f);
      else if (NATIVE_EXTS.some((e) => n.endsWith(e))) out.push(f);
    }
  };
  walk(NATIVE_DIR);
  return out;
}

let nativeMemo: { stamp: string; hash: string } | undefined;

/**
 * Hash of the runtime headers generated code includes. Remembered while the headers'
 * sizes and mtimes stay the same, so a long-lived watch process notices an edited header.
 */
export function nativeHeadersHash(): string {
  const stamp = nativeHeaderFiles()
    .map((f) => {
      const st = statSync(f);
      return `${f}:${st.size}:${st.mtimeMs}`;
    })
    .join('|');
  if (nativeMemo?.stamp !== stamp) nativeMemo = { stamp, hash: hashTree(NATIVE_DIR, NATIVE_EXTS).digest('hex') };
  return nativeMemo.hash;
}
