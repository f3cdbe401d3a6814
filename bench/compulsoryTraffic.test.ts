import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseProgram } from '../core/ir/parse.js';
import { compulsoryBytes, substepBytes } from './compulsoryTraffic.js';

/** The bench's traffic model (bench/run.ts): one pass per call, and one pass per substep. */

const launch = (name: string, origins: string, body: string) => `
    launch ${name} domain (a.shape[0], a.shape[1], a.shape[2]) origins {${origins}} transients [] {
      vloop PARALLEL k in [0, a.shape[2]) {
        hloop i in [0, a.shape[0]) j in [0, a.shape[1]) {
          ${body}
        }
      }
    }`;

// b is only written (no input read), a is read then updated in place, t is a temporary
const program = (loops: string) =>
  parseProgram(`program p(a: field<float64, IJK>, b: field<float64, IJK>, n: int64) {
  temporary t: float64[IJK] shape (a.shape[0], a.shape[1], a.shape[2])
  local step: int64
  body {${launch('init', 'b: (0, 0, 0)', 'b = 1.0')}
    ${loops}
  }
}`);

const substeps = (range: string) => `for step in range(${range}) {${launch('s', 'a: (0, 0, 0), t: (0, 0, 0)', `t = a[0, 0, 0]
          a = (t[0, 0, 0] + b[0, 0, 0])`)}
    }`;

// 2x2x2 float64 points: 64 bytes a pass over one field
test('one pass per call: each argument read once if its input is read, written once if written', () => {
  assert.is(compulsoryBytes(program(substeps('0, 3, 1')), [2, 2, 2]), 64 /* b written */ + 64 + 64 /* a read and written */);
});

test('one pass per substep: the loop body moves its own compulsory bytes every iteration', () => {
  // the init pass writes b; each of the 3 substeps reads a and b and writes a
  assert.is(substepBytes(program(substeps('0, 3, 1')), [2, 2, 2]), 64 + 3 * 3 * 64);
  assert.is(substepBytes(program(substeps('0, 6, 2')), [2, 2, 2]), 64 + 3 * 3 * 64);
  assert.is(substepBytes(program(substeps('0, 0, 1')), [2, 2, 2]), 64);
});

test('a trip count not known before the call leaves the per-substep bytes unknown', () => {
  assert.is(substepBytes(program(substeps('0, n, 1')), [2, 2, 2]), undefined);
});

test.run();
