import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OrchError } from '../../core/diagnostics.js';
import { describeClosure, parseClosure, type Closure, type ClosureNode } from '../../core/frontend/closure.js';
import { ModuleLoader } from '../../core/frontend/ModuleLoader.js';
import { printProgram } from '../../core/ir/print.js';
import { lowerEntry } from './lowerEntry.js';

/**
 * An orchestrated method lowered against a resolved closure (as orch.ndsl describes the
 * live object): arrays and floats become parameters, configuration is specialized,
 * FrozenStencils keep their origin/domain, members orch cannot compile are errors where used.
 */

const SOURCE = `import enum
from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl.dsl.typing import Float, FloatField
from ndsl.dsl.dace.orchestration import dace_inhibitor, orchestrate_function


class Mode(enum.Enum):
    A = 1
    B = 2


def scale(q: FloatField, factor: Float):
    with computation(PARALLEL), interval(...):
        q = q * factor


@orchestrate_function(config=None)
def twice(q, factor, stencil):
    stencil(q, factor)
    stencil(q, factor)


class Comp:
    @dace_inhibitor
    def _halo(self):
        pass

    def __call__(self, q, dt):
        for n in range(self._conf["n"]):
            self._scale(q, dt * self._weight)
            self._halo()
        if self._mode == Mode.B:
            self._scale(self._tmp, self._conf["w"])
`;

const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-closure-'));
const file = path.join(dir, 'comp.py');
writeFileSync(file, SOURCE);
const stencil: ClosureNode = { kind: 'stencil', file, name: 'scale', externals: {}, origin: [1, 1, 0], domain: [4, 4, 2] };

function closure(over: Record<string, ClosureNode> = {}): Closure {
  return {
    file,
    class: 'Comp',
    method: '__call__',
    args: { q: { kind: 'array', param: 'q', dtype: 'float64', axes: 'IJK' }, dt: { kind: 'scalar', param: 'dt', dtype: 'float64' } },
    self: {
      kind: 'component',
      file,
      class: 'Comp',
      method: '__call__',
      items: {
        '._conf': { kind: 'record', type: 'dict', items: { '["n"]': { kind: 'value', value: { int: 2 } }, '["w"]': { kind: 'scalar', param: 'self_conf_w', dtype: 'float64' } } },
        '._scale': stencil,
        '._weight': { kind: 'scalar', param: 'self_weight', dtype: 'float64' },
        '._halo': { kind: 'callback', path: '_self._halo', file, class: 'Comp', name: '_halo' },
        '._mode': { kind: 'value', value: { enum: 'Mode', name: 'B', value: { int: 2 } } },
        '._tmp': { kind: 'array', param: 'self_tmp', dtype: 'float64', axes: 'IJK' },
        ...over,
      },
    },
  };
}

const lower = (c: Closure) => lowerEntry(new ModuleLoader(), null, { externals: {}, defines: {}, closure: c });

const t = suite('closure lowering');

t('arrays and floats are parameters, configuration is folded, frozen bounds and callbacks are kept in order', () => {
  const p = lower(closure());
  assert.equal(
    p.params.map((x) => `${x.kind}:${x.name}`),
    ['field:q', 'scalar:dt', 'scalar:self_conf_w', 'scalar:self_weight', 'field:self_tmp'],
  );
  const ir = printProgram(p);
  // the loop bound (an int in a dict) is compile-time; the enum test picked the branch
  assert.match(ir, 'for n in range(0, 2, 1)');
  assert.match(ir, 'call scale(q=q, factor=(dt * self_weight)) origin {q: (1, 1, 0)} domain (4, 4, 2)');
  assert.match(ir, 'call scale(q=self_tmp, factor=self_conf_w)');
  assert.is(p.callbacks?.length, 1);
  assert.is(p.callbacks?.[0].function.path, '_self._halo');
  assert.equal(p.callbacks?.[0].params, []);
  const calls = p.body.flatMap(function flat(s): typeof p.body {
    return s.kind === 'for' ? s.body.flatMap(flat) : s.kind === 'if' ? [...s.then, ...s.else].flatMap(flat) : [s];
  });
  assert.equal(calls.map((s) => s.kind), ['call', 'callback', 'call']);
  const first = calls[0] as Extract<(typeof calls)[number], { kind: 'call' }>;
  assert.equal(first.origins.q.map((e) => (e.kind === 'lit' ? e.value : '?')), [1, 1, 0]);
  assert.equal(first.domain.map((e) => (e.kind === 'lit' ? e.value : '?')), [4, 4, 2]);
});

t('another enum member drops the branch; a float stays a parameter whatever its value', () => {
  const p = lower(closure({ '._mode': { kind: 'value', value: { enum: 'Mode', name: 'A', value: { int: 1 } } } }));
  assert.not.match(printProgram(p), 'q=self_tmp');
  assert.ok(p.params.some((x) => x.name === 'self_weight'));
});

t('one array reachable through two chains is one parameter', () => {
  const p = lower(closure({ '._tmp': { kind: 'array', param: 'q', dtype: 'float64', axes: 'IJK' } }));
  assert.equal(p.params.filter((x) => x.kind === 'field').map((x) => x.name), ['q']);
  assert.match(printProgram(p), 'call scale(q=q, factor=self_conf_w)');
});

t('an @orchestrate_function called by the method is inlined', () => {
  writeFileSync(path.join(dir, 'comp3.py'), SOURCE.replace('            self._halo()\n', '            self._halo()\n            twice(q, 0.5, self._scale)\n'));
  const c = closure({ '._scale': { ...stencil, file: path.join(dir, 'comp3.py') } as ClosureNode });
  c.file = c.self.file = path.join(dir, 'comp3.py');
  (c.self.items['._halo'] as Extract<ClosureNode, { kind: 'callback' }>).file = c.file;
  const ir = printProgram(lower(c));
  assert.is(ir.split('call scale(q=q, factor=0.5)').length - 1, 2);
});

t('a member orch cannot describe is an error where the method uses it, naming the chain and its type', () => {
  try {
    lower(closure({ '._weight': { kind: 'unsupported', type: 'Lock', why: 'orch cannot describe this object', hint: 'keep numbers on self' } }));
    assert.unreachable('lowered');
  } catch (e) {
    if (!(e instanceof OrchError)) throw e;
    assert.is(e.diagnostic.code, 'E_CLOSURE_TYPE');
    assert.is(e.diagnostic.message, "'self._weight' (Python type Lock): orch cannot describe this object");
    assert.is(e.diagnostic.loc?.line, 30);
    assert.is(e.diagnostic.hint, 'keep numbers on self');
  }
});

t('a FrozenStencil called with its own origin is refused at the call', () => {
  writeFileSync(path.join(dir, 'comp2.py'), SOURCE.replace('self._scale(q, dt * self._weight)', 'self._scale(q, dt, origin=(0, 0, 0))'));
  const c = closure({ '._scale': { ...stencil, file: path.join(dir, 'comp2.py') } as ClosureNode });
  c.file = c.self.file = path.join(dir, 'comp2.py');
  (c.self.items['._halo'] as Extract<ClosureNode, { kind: 'callback' }>).file = c.file;
  try {
    lower(c);
    assert.unreachable('lowered');
  } catch (e) {
    if (!(e instanceof OrchError)) throw e;
    assert.is(e.diagnostic.code, 'E_CALL_ARGS');
    assert.match(e.diagnostic.message, 'fixed where it was built');
  }
});

t('parseClosure checks the description; describeClosure lists what orch info shows', () => {
  assert.throws(() => parseClosure('{"file": 1}', 'c.json'), /expected \{file, class, method, args, self\}/);
  assert.throws(() => parseClosure(JSON.stringify({ ...closure(), args: { q: { kind: 'array', param: 'q', dtype: 'complex', axes: 'IJK' } } }), 'c.json'), /array of dtype complex/);
  const lines = describeClosure(parseClosure(JSON.stringify(closure()), 'c.json'));
  assert.equal(lines.slice(0, 3), ['closure of Comp.__call__:', '  q: array float64 IJK (parameter q)', '  dt: runtime float64 (parameter dt)']);
  assert.ok(lines.includes('  self._conf["n"]: compile-time 2'));
  assert.ok(lines.includes('  self._mode: compile-time Mode.B'));
  assert.ok(lines.includes('  self._scale: stencil scale origin (1, 1, 0) domain (4, 4, 2)'));
  assert.ok(lines.includes('  self._halo: callback Comp._halo'));
});

t.run();
