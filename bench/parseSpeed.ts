import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Stmt } from '../core/ir/types.js';
import { verifyProgram } from '../core/ir/verify.js';
import { forEachStmt } from '../core/ir/visit.js';
import { expandProgram } from '../plugins/libraryExpansion/expandProgram.js';
import { findEntry } from '../core/frontend/entries.js';
import { lowerEntry } from '../plugins/parse/lowerEntry.js';
import { ModuleLoader } from '../core/frontend/ModuleLoader.js';

/**
 * Frontend speed on a saturation-adjustment-sized stencil (ARCHITECTURE §1: parse +
 * optimize must take seconds, not minutes). Generates a module shaped like PyFV3's
 * saturation adjustment (a tree of @gtscript.function helpers 6 deep, tuple returns,
 * branches, chained ternaries, math builtins) whose stencil has about 1,700 statements
 * after inlining, then times parse (source -> AST, module top level), lowering (inlining,
 * types, checks) and analysis (library expansion: extents, grouping). Target: < 200 ms.
 *
 *   npm run build && node dist/bench/parseSpeed.js [--runs N]
 */

const TARGET_MS = 200;
const STATEMENTS = 1700;

/** The helper tree: level 6 are leaves; each level calls two helpers of the level below. */
function helperTree(): string {
  const out: string[] = [];
  const leaves = 6;
  for (let n = 0; n < leaves; n++) {
    out.push(
      '@gtscript.function',
      `def leaf${n}(t, q, den):`,
      `    es = E00 * exp(${17 + n}.5 * (t - T_ICE) / (t - ${30 + n}.2))`,
      '    qs = es / (RVGAS * t * den)',
      `    dq = (q - qs) * ${n + 1}.0e-1 if q > qs else 0.0 if q > 0.5 * qs else -${n + 1}.0e-2 * qs`,
      '    if dq > 0.0:',
      '        t = t + LV0 / CP_AIR * dq',
      '    else:',
      '        t = t - 0.5 * LV0 / CP_AIR * dq',
      '    return t, q - dq, sqrt(abs(dq))',
      '',
    );
  }
  let below = Array.from({ length: leaves }, (_, n) => `leaf${n}`);
  for (let level = 5; level >= 1; level--) {
    const names: string[] = [];
    const count = Math.max(1, below.length - 1);
    for (let n = 0; n < count; n++) {
      const a = below[n % below.length];
      const b = below[(n + 1) % below.length];
      const name = `level${level}_${n}`;
      names.push(name);
      out.push(
        '@gtscript.function',
        `def ${name}(t, q, den):`,
        `    t1, q1, r1 = ${a}(t, q, den)`,
        `    t2, q2, r2 = ${b}(t1, q1 + ${n + 1}.0e-4, den)`,
        '    q = max(q2, 0.0)',
        `    t = 0.5 * (t1 + t2) if r1 < r2 else t2`,
        '    return t, q, r1 + r2',
        '',
      );
    }
    below = names;
  }
  return out.join('\n');
}

/** A stencil calling the top helper `calls` times on a chain of temporaries. */
function moduleSource(calls: number): string {
  const body: string[] = [];
  body.push('        tt = t', '        qq = qv', '        acc = 0.0');
  for (let c = 0; c < calls; c++) body.push(`        tt, qq, r${c} = level1_0(tt, qq + ${c}.0e-5, den)`, `        acc = acc + r${c}`);
  body.push('        t = tt', '        qv = qq', '        diag = acc');
  return [
    'from gt4py.cartesian import gtscript',
    'from gt4py.cartesian.gtscript import PARALLEL, computation, exp, interval, sqrt',
    'from ndsl.dsl.typing import FloatField',
    '',
    'T_ICE = 273.16',
    'E00 = 611.21',
    'RVGAS = 461.5',
    'LV0 = 2.5e6',
    'CP_AIR = 1004.6',
    '',
    helperTree(),
    '',
    'def satadjust(t: FloatField, qv: FloatField, den: FloatField, diag: FloatField):',
    '    with computation(PARALLEL), interval(...):',
    ...body,
    '',
  ].join('\n');
}

function countStatements(stmts: readonly Stmt[]): number {
  let n = 0;
  forEachStmt(stmts, () => void n++);
  return n;
}

interface Timing {
  parse: number;
  lower: number;
  expand: number;
  statements: number;
}

function once(file: string): Timing {
  const t0 = performance.now();
  const loader = new ModuleLoader();
  const scope = loader.load(file);
  const t1 = performance.now();
  const program = lowerEntry(loader, findEntry(scope, 'satadjust'), { externals: {}, defines: {} });
  const t2 = performance.now();
  const expanded = expandProgram(program);
  const t3 = performance.now();
  const def = program.stencils.satadjust;
  const statements = def.computations.reduce((n, c) => n + c.intervals.reduce((m, iv) => m + countStatements(iv.body), 0), 0);
  if (verifyProgram(expanded).length) throw new Error('the generated stencil does not verify after expansion');
  return { parse: t1 - t0, lower: t2 - t1, expand: t3 - t2, statements };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function main(): void {
  const runsArg = process.argv.indexOf('--runs');
  const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 15;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-bench-parse-'));
  const file = path.join(dir, 'satadjust.py');
  // pick the number of top-level calls that gives about STATEMENTS statements
  writeFileSync(file, moduleSource(1));
  const perCall = once(file).statements;
  const calls = Math.max(1, Math.round(STATEMENTS / perCall));
  writeFileSync(file, moduleSource(calls));
  for (let w = 0; w < 3; w++) once(file); // warm up the JIT
  const timings = Array.from({ length: runs }, () => once(file));
  const total = median(timings.map((t) => t.parse + t.lower + t.expand));
  const lines = (moduleSource(calls).match(/\n/g) ?? []).length;
  console.log(
    `parse + inline + analysis of a ${timings[0].statements}-statement stencil (${lines} source lines, ${calls} calls of a 6-deep helper tree): ` +
      `median ${total.toFixed(1)} ms over ${runs} runs (parse ${median(timings.map((t) => t.parse)).toFixed(1)} ms, ` +
      `lower ${median(timings.map((t) => t.lower)).toFixed(1)} ms, expand ${median(timings.map((t) => t.expand)).toFixed(1)} ms); ` +
      `target < ${TARGET_MS} ms: ${total < TARGET_MS ? 'met' : 'NOT met'}`,
  );
}

main();
