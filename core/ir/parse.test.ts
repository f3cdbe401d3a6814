import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OrchError } from '../diagnostics.js';
import { parseProgram } from './parse.js';
import { printProgram } from './print.js';
import type { Expr, PStmt } from './types.js';
import { verifyProgram } from './verify.js';

const parse = suite('IR text parser');

const TEXT = `program p(a: field<int32, IJK>, n: int64) {
  local m: int64
  body {
    set m = (n + 1)
    launch s domain (a.shape[0], a.shape[1], a.shape[2]) origins {a: (0, 0, 0)} transients [] {
      vloop PARALLEL k in [0, a.shape[2]) {
        hloop i in [0, a.shape[0]) j in [0, a.shape[1]) {
          a = (a[1, 0, 0] + 2)
        }
      }
    }
  }
}`;

function assign(body: PStmt[]): Expr {
  const l = body[1] as Extract<PStmt, { kind: 'launch' }>;
  const s = l.loops[0].body[0].body[0];
  if (s.kind !== 'assign') throw new Error('not an assign');
  return s.value;
}

parse('an integer literal takes the dtype of its sibling operand; the program verifies', () => {
  const p = parseProgram(TEXT, 'p.ir');
  assert.is(printProgram(p), TEXT);
  assert.equal(verifyProgram(p), []);
  const v = assign(p.body);
  assert.is(v.kind === 'binary' && v.right.dtype, 'int32');
  const set = p.body[0];
  assert.is(set.kind === 'set' && set.value.dtype, 'int64');
});

parse('statements carry their place in the IR text', () => {
  const p = parseProgram(TEXT, 'p.ir');
  assert.equal(p.body[1].loc, { file: 'p.ir', line: 5, col: 5 });
});

parse('malformed text is an E_IR_PARSE diagnostic with a frame at the token', () => {
  const bad = TEXT.replace('(a[1, 0, 0] + 2)', '(a[1, 0, 0] + b)');
  try {
    parseProgram(bad, 'bad.ir');
    assert.unreachable('parsed');
  } catch (e) {
    assert.ok(e instanceof OrchError, String(e));
    const d = e.diagnostic;
    assert.is(d.code, 'E_IR_PARSE');
    assert.is(d.message, "unknown scalar 'b'");
    assert.equal(d.loc, { file: 'bad.ir', line: 8, col: 29 });
    assert.match(d.frame!, '> 8 |');
    assert.ok(d.hint);
  }
});

parse('a missing closing brace is reported at the end of the text', () => {
  try {
    parseProgram(TEXT.slice(0, -1), 'cut.ir');
    assert.unreachable('parsed');
  } catch (e) {
    assert.ok(e instanceof OrchError, String(e));
    assert.is(e.diagnostic.message, "expected '}', found '<end of text>'");
  }
});

parse('a write and its debug check at a K offset keep the offset through print and parse', () => {
  const text = `program p(q: field<float64, IJK>) {
  body {
    launch s domain (q.shape[0], q.shape[1], (q.shape[2] - 1)) origins {q: (0, 0, 0)} transients [] {
      vloop FORWARD k in [0, (q.shape[2] - 1)) {
        hloop i in [0, q.shape[0]) j in [0, q.shape[1]) {
          q[0, 0, 1] = (q[0, 0, 0] * 2.0)
          check nan q[0, 0, 1]
        }
      }
    }
  }
}`;
  const p = parseProgram(text, 'k.ir');
  const body = (p.body[0] as Extract<PStmt, { kind: 'launch' }>).loops[0].body[0].body;
  assert.is(body[0].kind === 'assign' && body[0].kOffset, 1);
  assert.is(body[1].kind === 'check' && body[1].kOffset, 1);
  assert.is(printProgram(p), text);
});

parse.run();
