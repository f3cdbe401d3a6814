import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Program } from './types.js';
import { verifyProgram } from './verify.js';

const loc = { file: 'm.py', line: 1, col: 1 };

function program(value: Program['body'][number]): Program {
  return {
    name: 'p',
    entryKind: 'program',
    loc,
    params: [
      { name: 'q', kind: 'field' },
      { name: 'dt', kind: 'scalar' },
    ],
    arrays: [{ name: 'q', dtype: 'float64', axes: 'IJK', role: 'arg', loc }],
    scalars: [
      { name: 'dt', dtype: 'float64', role: 'arg' },
      { name: 'n', dtype: 'int64', role: 'local' },
    ],
    compiletime: {},
    stencils: {},
    body: [value],
  };
}

const int = (v: number) => ({ kind: 'lit' as const, value: v, dtype: 'int64' as const });

test('a well-formed expanded program verifies', () => {
  const p = program({
    kind: 'launch',
    stencil: 's',
    domain: [int(4), int(4), int(4)],
    origins: { q: [int(0), int(0), int(0)] },
    transients: [],
    loops: [
      {
        order: 'PARALLEL',
        k: { lo: int(0), hi: int(4) },
        loc,
        body: [{ i: { lo: int(0), hi: int(4) }, j: { lo: int(0), hi: int(4) }, body: [{ kind: 'assign', target: 'q', value: { kind: 'scalar', name: 'dt', dtype: 'float64' }, loc }] }],
      },
    ],
    loc,
  });
  assert.equal(verifyProgram(p), []);
});

test('unknown names and dtype mismatches are reported', () => {
  const bad = program({
    kind: 'launch',
    stencil: 's',
    domain: [int(4), int(4), int(4)],
    origins: { nope: [int(0)] },
    transients: [],
    loops: [
      {
        order: 'PARALLEL',
        k: { lo: int(0), hi: int(4) },
        loc,
        body: [
          {
            i: { lo: int(0), hi: int(4) },
            j: { lo: int(0), hi: int(4) },
            body: [
              { kind: 'assign', target: 'q', value: { kind: 'scalar', name: 'n', dtype: 'int64' }, loc },
              { kind: 'assign', target: 'missing', value: { kind: 'binary', op: '+', left: int(1), right: { kind: 'lit', value: 1, dtype: 'float64' }, dtype: 'int64' }, loc },
            ],
          },
        ],
      },
    ],
    loc,
  });
  const errors = verifyProgram(bad).join('\n');
  assert.match(errors, "origin for unknown array 'nope'");
  assert.match(errors, 'q is float64 but is assigned int64');
  assert.match(errors, "unknown array 'missing'");
  assert.match(errors, "operands of '+' have dtypes int64 and float64");
});

test('a set of an undeclared scalar is reported', () => {
  assert.match(verifyProgram(program({ kind: 'set', name: 'zz', value: int(1), loc })).join(), "unknown scalar 'zz'");
});

test.run();
