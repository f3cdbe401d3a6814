import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import type { SourceLoc } from '../ir/types.js';
import { didYouMean } from '../diagnostics.js';
import { CONFIG_KEYS, configSchema } from './configSchema.js';
import { configValueKind, unknownConfigKey } from '../diagnostics/configErrors.js';

/**
 * Checks a loaded config against its schema (configSchema.ts) and turns the first problem
 * into a diagnostic: the key's path, what it must be, what it is, a did-you-mean for a
 * misspelt key, and the key's place in the config file when it is written there.
 */

/** What each value must be, and an example to write, by its path (array indices left out). */
const EXPECTED: Record<string, [must: string, example: string]> = {
  modules: ['a list of glob strings', "modules: ['stencils/**/*.py']"],
  preset: ['a preset name (a string), or a preset object (name, description, backend, compiler, codegen, plugins)', "preset: 'cpu', or import a preset file orch tune wrote: preset: tuned"],
  plugins: ['a list of plugins (objects with a name and an apply(compiler) method)', 'plugins: [new MyPlugin()] (see docs/plugins.md)'],
  'compiler.cxx': ['the compiler command (a string)', "compiler: { cxx: 'g++-12' }"],
  'compiler.flags': ['a list of strings', "compiler: { flags: ['-O3', '-fopenmp'] }"],
  'compiler.extraFlags': ['a list of strings', "compiler: { extraFlags: ['-Wall'] }"],
  'compiler.cudaArch': ["a CUDA architecture string ('sm_90', 'sm_80,sm_90' or 'auto')", "compiler: { cudaArch: 'sm_90' }"],
  'compiler.mpi': ['true or false', 'compiler: { mpi: true } (links MPI for halo exchanges across ranks)'],
  'compiler.launcher': ['a non-empty list of strings (a command and its arguments)', "compiler: { launcher: ['ccache'] }"],
  'compiler.timeoutS': ['a positive number of seconds', 'compiler: { timeoutS: 3600 } (the default is 1800)'],
  'codegen.loopOrder': ['a loop order: I, J and K once each, outermost first', "codegen: { loopOrder: 'KJI' }"],
  'codegen.openmp': ['true or false', 'codegen: { openmp: true }'],
  'codegen.lineDirectives': ['true or false', 'codegen: { lineDirectives: true }'],
  'codegen.blockSize': ['[x, y, z], positive integers', 'codegen: { blockSize: [32, 4, 1] }'],
  'codegen.columnBlockSize': ['[x, y], positive integers', 'codegen: { columnBlockSize: [32, 4] }'],
  'codegen.syncLaunches': ['true or false', 'codegen: { syncLaunches: true }'],
  'codegen.maxWhileIterations': ['a positive integer', 'codegen: { maxWhileIterations: 100000000 } (the default is 10000000, as Python mode)'],
  'codegen.fuseNests': ['true or false', 'codegen: { fuseNests: true } (the nests of a tile then run fused, column by column)'],
  'codegen.fuseRegions': ['true or false', 'codegen: { fuseNests: true, fuseRegions: true } (nests with horizontal regions then fuse too)'],
  'codegen.vectorWidth': ['128, 256, 512 or false', 'codegen: { vectorWidth: 256 } (g++ then prefers 256-bit vectors where it compiles for AVX-512)'],
  'codegen.streamVersions': ['true or false', 'codegen: { streamVersions: true } (versions of in-place arrays then fill and commit row by row inside fused nests)'],
  'codegen.rollVersions': ['true or false', 'codegen: { streamVersions: true, rollVersions: true } (streamed versions and zero-filled temporaries of fused nests then keep only the rows in flight)'],
  'codegen.splitRegionTiles': ['true or false', 'codegen: { splitRegionTiles: true } (tiles no region reaches then run the other nests fused)'],
  'codegen.jamLevels': ['true, false, or a positive integer (the most nests that share a K loop)', 'codegen: { jamLevels: 8 } (loops of more fused nests then run one K loop per nest)'],
  'codegen.fusedStrip': ['a positive integer (columns per strip), or false', 'codegen: { fusedStrip: 8 } (fused nests then walk a tile in strips of 8 columns)'],
  'codegen.balancedTiles': ['true or false', 'codegen: { balancedTiles: true } (tiles then share the domain evenly)'],
  'codegen.streamOutputs': ['true or false', 'codegen: { streamOutputs: true } (outputs of fused nests then stream past the caches)'],
  'codegen.prefetchColumns': ['a positive integer (columns ahead), or false', 'codegen: { prefetchColumns: 4 } (fused nests then prefetch the columns they read 4 ahead)'],
  'codegen.recomputeTemporaries': ['true or false', 'codegen: { recomputeTemporaries: true } (temporaries read at horizontal offsets are then recomputed where they are read)'],
  'codegen.alignTileColumns': ['true or false', 'codegen: { alignTileColumns: true } (the K columns of tile-local arrays then start on a 64-byte line)'],
  'codegen.stageSweeps': ['true or false', 'codegen: { stageSweeps: false } (tiles of FORWARD/BACKWARD launches then read fields in place)'],
  'codegen.versionedTileK': ['a positive integer, or false', 'codegen: { versionedTileK: false } (tiles with versions of in-place arrays then hold whole columns)'],
  'codegen.sweepBlock': ['a positive integer (columns per block along J), or false', 'codegen: { sweepBlock: 32 }'],
  'codegen.unrollLoops': ['true or false', 'codegen: { unrollLoops: true } (the launches of a short compile-time loop fuse into one)'],
  'codegen.tile': ["[ti, tj] or [ti, tj, tk], positive integers, false or 'auto'", "write codegen: { tile: [8, 8, 16] }, tile: false to run launches untiled, or tile: 'auto' for a tile per launch"],
  cacheRoot: ['a folder (a string)', "cacheRoot: '.cache'"],
  pythonPath: ['a list of folders (strings)', "pythonPath: ['lib']"],
  externals: ['an object of external values', 'externals: { N: 2 }'],
  defines: ['an object of numbers and booleans', 'defines: { n_iter: 3 }'],
  verifyIR: ['true or false', 'verifyIR: true'],
  passes: ['an object of pass switches', 'passes: { fusion: false }'],
  debug: ['an object of debug options', "debug: { action: 'log' }"],
  'debug.enabled': ['true or false', 'debug: { enabled: true }'],
  'debug.nan': ['true or false', 'debug: { nan: false }'],
  'debug.tracers': ['a list of field names', "debug: { tracers: ['qvapor'] }"],
  'debug.threshold': ['a number', 'debug: { threshold: -1e-8 }'],
  'debug.delp': ['true or false', 'debug: { delp: false }'],
  'debug.action': ["'abort' or 'log'", "debug: { action: 'log' }"],
  cache: ['an object of cache options', "cache: { maxSize: '2G' }"],
  'cache.maxSize': ['a size: a number of bytes, or a string with K, M, G, T (powers of 1000) or Ki, Mi, Gi, Ti (of 1024)', "cache: { maxSize: '2G' }"],
  layout: ["{ layout: 'NXxNY', domain: [nx, ny, nz], halo?: number } (domain: the compute domain of one rank)", "layout: { layout: '3x3', domain: [48, 48, 79] }"],
  'layout.layout': ["a rank layout 'NXxNY'", "layout: { layout: '3x3', domain: [48, 48, 79] }"],
  'layout.domain': ['[nx, ny, nz], positive integers: the compute domain of one rank', "layout: { layout: '3x3', domain: [48, 48, 79] }"],
  'layout.halo': ['a non-negative integer', "layout: { layout: '3x3', domain: [48, 48, 79], halo: 3 }"],
};

function expected(keyPath: string): [string, string] | undefined {
  if (EXPECTED[keyPath]) return EXPECTED[keyPath];
  if (keyPath.startsWith('passes.')) return ['true or false (false turns the pass off)', `passes: { ${keyPath.slice(7)}: false }`];
  if (keyPath.startsWith('defines.')) return ['a number or a boolean', `defines: { ${keyPath.slice(8)}: 3 }`];
  return undefined;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  if (Array.isArray(value)) return `a list of ${value.length} (${JSON.stringify(value)?.slice(0, 40)})`;
  if (typeof value === 'function') return 'a function';
  return 'an object';
}

function valueAt(root: unknown, keys: PropertyKey[]): unknown {
  let v = root;
  for (const k of keys) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** Where `keys` (object keys, nested) are written in the config file: the last one's position. */
function locateKey(file: string, keys: string[]): SourceLoc | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let at = 0;
  let found = -1;
  for (const k of keys) {
    const re = new RegExp(`(?<![\\w$])(['"]?)${k.replace(/[$]/g, '\\$')}\\1\\s*:`, 'g');
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return undefined;
    found = m.index;
    at = m.index + m[0].length;
  }
  if (found < 0) return undefined;
  const before = text.slice(0, found).split('\n');
  return { file, line: before.length, col: before[before.length - 1].length + 1 };
}

/** `a: { b: value }` for the keys ['a', 'b']. */
function nest(keys: string[], value: string): string {
  return keys.reduceRight((inner, k, i) => (i === keys.length - 1 ? `${k}: ${inner}` : `${k}: { ${inner} }`), value);
}

export function validateConfig(cfg: unknown, file: string): void {
  const r = configSchema.safeParse(cfg);
  if (r.success) return;
  const issue: z.core.$ZodIssue = r.error.issues[0];
  const name = path.basename(file);
  const objectKeys = issue.path.filter((k): k is string => typeof k === 'string');
  if (issue.code === 'unrecognized_keys') {
    const parent = objectKeys.join('.');
    const key = issue.keys[0];
    const dotted = parent ? `${parent}.${key}` : key;
    const known = CONFIG_KEYS[parent] ?? [];
    const guess = didYouMean(key, known);
    throw unknownConfigKey(dotted, name, locateKey(file, [...objectKeys, key]), key.length, guess ? `did you mean '${parent ? `${parent}.` : ''}${guess}'?` : `known keys${parent ? ` of '${parent}'` : ''}: ${known.join(', ')}`);
  }
  const keyPath = objectKeys.join('.');
  const value = valueAt(cfg, issue.path);
  const whole = valueAt(cfg, objectKeys);
  const [must, example] = expected(keyPath) ?? [issue.message, ''];
  const got = issue.path.length > objectKeys.length ? `${describe(whole)}, whose item ${issue.path.slice(objectKeys.length).join('.')} is ${describe(value)}` : describe(value);
  const suggestion = typeof whole === 'string' && must.startsWith('a list') ? `write ${nest(objectKeys, `['${whole.replace(/'/g, "\\'")}']`)} (a list, even of one)` : example.startsWith('write') || !example ? example : `write ${example}`;
  throw configValueKind(keyPath || '(config)', must, got, name, objectKeys.length ? locateKey(file, objectKeys) : undefined, objectKeys[objectKeys.length - 1]?.length, suggestion || undefined);
}
