import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CASES_DIR } from './conformanceKit.js';
import { OrchError } from '../core/diagnostics.js';
import { parseProgram } from '../core/ir/parse.js';
import { printProgram } from '../core/ir/print.js';
import type { Program } from '../core/ir/types.js';
import { verifyProgram } from '../core/ir/verify.js';
import { forEachPStmt } from '../core/ir/visit.js';
import { findEntry, moduleEntries } from '../core/frontend/entries.js';
import { parseExternals } from '../core/frontend/externalsJson.js';
import { ModuleLoader } from '../core/frontend/ModuleLoader.js';
import { lowerEntry } from '../plugins/parse/lowerEntry.js';
import { insertChecks } from '../plugins/debugInsertion/insertChecks.js';
import { expandProgram } from '../plugins/libraryExpansion/expandProgram.js';
import { assignPool } from '../plugins/pooling/assignPool.js';
import { splitRegions } from '../plugins/regionExpansion/splitRegions.js';
import { constantFolding } from '../plugins/simplify/constantFolding.js';
import { copyPropagation } from '../plugins/simplify/copyPropagation.js';
import { deadCode } from '../plugins/simplify/deadCode.js';
import { fusion } from '../plugins/simplify/fusion.js';
import { sweepFusion } from '../plugins/simplify/sweepFusion.js';
import { launchLoopUnroll } from '../plugins/simplify/launchLoopUnroll.js';
import { mergeBlocks } from '../plugins/simplify/mergeBlocks.js';
import { planes } from '../plugins/simplify/planes.js';
import { scalarization } from '../plugins/simplify/scalarization.js';
import { tiling } from '../plugins/simplify/tiling.js';

/**
 * The IR text parses back: for every program the conformance cases and the fixtures
 * lower to, at every stage of the pipeline (after parse, each simplify pass, region and
 * library expansion, pooling and debug insertion), `print(parse(print(p)))` is
 * `print(p)`, and the parsed program verifies. Entries the frontend rejects have no IR.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures');

interface Source {
  name: string;
  file: string;
  entry?: string;
  externals: string;
  defines: Record<string, number | boolean>;
}

function sources(): Source[] {
  const out: Source[] = [];
  const caseDirs = [
    ...(existsSync(CASES_DIR) ? readdirSync(CASES_DIR).map((c) => path.join(CASES_DIR, c)) : []),
    ...readdirSync(path.join(fixtures, 'language')).map((c) => path.join(fixtures, 'language', c)),
  ];
  for (const dir of caseDirs.sort()) {
    if (!existsSync(path.join(dir, 'case.json'))) continue;
    const spec = JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8'));
    out.push({ name: path.basename(dir), file: path.join(dir, 'module.py'), entry: spec.entry, externals: JSON.stringify(spec.externals ?? {}), defines: spec.compiletime ?? {} });
  }
  for (const sub of ['bench', 'programs', 'debug', 'diffusion', 'cuda']) {
    for (const f of readdirSync(path.join(fixtures, sub)).sort()) {
      if (f.endsWith('.py')) out.push({ name: `${sub}/${f}`, file: path.join(fixtures, sub, f), externals: '{}', defines: {} });
    }
  }
  return out;
}

const DEBUG = { enabled: true, nan: true, tracers: ['q', 'qv', 'qvapor', 'tracer'], threshold: -1e-12, delp: true, action: 'abort' as const };

/** The pipeline's order, each step printed: what `--print-ir-after` shows. */
const STEPS: [string, (p: Program) => Program][] = [
  ['constantFolding', constantFolding],
  ['deadCode', deadCode],
  ['regionExpansion', splitRegions],
  ['libraryExpansion', (p) => expandProgram(p, { tile: [8, 8, 16] })],
  ['copyPropagation', copyPropagation],
  ['deadCode', deadCode],
  ['loopUnroll', launchLoopUnroll],
  ['sweepFusion', sweepFusion],
  ['fusion', fusion],
  ['scalarization', scalarization],
  ['constantFolding', constantFolding],
  ['mergeBlocks', mergeBlocks],
  ['deadCode', deadCode],
  ['tiling', tiling],
  ['planes', planes],
  ['pooling', assignPool],
  ['debugInsertion', (p) => insertChecks(p, DEBUG)],
];

/**
 * A program as the text records it: without source locations and the stand-ins parse.ts
 * documents (check action and names, requirement hints, callback functions, entry kind),
 * declarations by name, and only the stencils the body calls.
 */
function recorded(p: Program): unknown {
  const called = new Set<string>();
  forEachPStmt(p.body, (s) => {
    if (s.kind === 'call') called.add(s.stencil);
  });
  const byName = <T extends { name: string }>(xs: readonly T[]) => [...xs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const q = {
    ...p,
    entryKind: undefined,
    arrays: byName(p.arrays),
    scalars: byName(p.scalars),
    stencils: Object.fromEntries(Object.entries(p.stencils).filter(([n]) => called.has(n))),
    callbacks: (p.callbacks ?? []).map((c) => ({ ...c, function: undefined, why: undefined, host: c.host && { ...c.host, scalars: byName(c.host.scalars) } })),
  };
  const DROP = new Set(['loc', 'hint', 'action', 'program', 'stencil']);
  return JSON.parse(
    JSON.stringify(q, (k, v) => {
      if (DROP.has(k) && typeof v !== 'object') return k === 'stencil' && typeof v === 'string' ? v : undefined;
      // absent and empty (or false) print alike
      if (k === 'loc' || (k === 'split' && v === false) || (k === 'locals' && Array.isArray(v) && v.length === 0)) return undefined;
      return v;
    }),
  );
}

/** The first place where two JSON values differ, as `path: a != b`, or null. */
function difference(a: unknown, b: unknown, path: string): string | null {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return JSON.stringify(a) === JSON.stringify(b) ? null : `${path || 'the program'}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
  }
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const d = difference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
    if (d) return d.length > 300 ? `${d.slice(0, 300)}...` : d;
  }
  return null;
}

function roundTrip(p: Program, where: string): void {
  const text = printProgram(p);
  let parsed: Program;
  try {
    parsed = parseProgram(text, `${where}.ir`);
  } catch (e) {
    const d = (e as { diagnostic?: { message: string; loc?: { line: number; col: number } } }).diagnostic;
    const line = d?.loc ? text.split('\n')[d.loc.line - 1] : '';
    assert.unreachable(`${where}: ${d ? `${d.message} at ${d.loc?.line}:${d.loc?.col}\n  ${line}` : String(e)}`);
    return;
  }
  assert.fixture(printProgram(parsed), text, `${where}: printed again`);
  assert.equal(verifyProgram(parsed), [], `${where}: parsed program verifies`);
  const lost = difference(recorded(p), recorded(parsed), '');
  assert.is(lost, null, `${where}: the text does not record ${lost}`);
}

const rt = suite('IR text round trip');
for (const src of sources()) {
  rt(src.name, () => {
    const loader = new ModuleLoader();
    const scope = loader.load(src.file);
    const entries = src.entry ? [findEntry(scope, src.entry)] : moduleEntries(scope);
    assert.ok(entries.length > 0, 'has entries');
    for (const entry of entries) {
      let p: Program;
      try {
        p = lowerEntry(loader, entry, { externals: parseExternals(src.externals), defines: src.defines });
      } catch (e) {
        // an entry the frontend rejects (the conformance kit's known gaps) has no IR to print;
        // its rejection must still be a diagnostic at a source location, not a crash
        if (!(e instanceof OrchError)) throw e;
        assert.ok(e.diagnostic.loc, `${src.name}:${entry.name}: ${e.diagnostic.code} has a location`);
        continue;
      }
      roundTrip(p, `${src.name}:${entry.name} after parse`);
      for (const [name, step] of STEPS) {
        p = step(p);
        roundTrip(p, `${src.name}:${entry.name} after ${name}`);
      }
    }
  });
}
rt.run();
