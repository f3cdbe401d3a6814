"""The binding's fast path goes through <sym>_run_bound (the field comparison in C), and
refuses every wrong argument exactly as the old path (the checks in Python, then
<sym>_run) does: same exception class, same message. Prints "ok".

usage: ORCH_MODE=build-and-run check_run_bound.py WORK_DIR
"""
import ctypes
import importlib
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np

import orch
from orch.library import binding_module

work = Path(sys.argv[1])
(work / "bound.py").write_text(textwrap.dedent('''
    from gt4py.cartesian.gtscript import FORWARD, PARALLEL, computation, interval
    from ndsl.dsl.typing import Float, FloatField, FloatFieldIJ, Int

    from orch import program, stencil

    @stencil
    def axpy(x: FloatField, y: FloatField, a: Float):
        with computation(PARALLEL), interval(...):
            y = y + a * x

    @stencil
    def to_plane(x: FloatField, p: FloatFieldIJ):
        with computation(FORWARD), interval(0, 1):
            p = x

    @program
    def prog(x: FloatField, y: FloatField, p: FloatFieldIJ, a: Float, n: Int):
        nx, ny, nz = x.shape
        for i in range(n):
            axpy(x, y, a, origin=(0, 0, 0), domain=(nx, ny, nz))
        to_plane(y, p)
'''))
sys.path.insert(0, str(work))
bound = importlib.import_module("bound")
report = orch.cli.build_entry(str(work / "bound.py"), "prog", {})
binding = binding_module(report["binding"])
symbol = binding.SYMBOL
assert hasattr(ctypes.CDLL(report["library"]), f"{symbol}_run_bound"), "the library exports run_bound"


class Counting:
    """Counts the calls of the old path (the checks in Python), so a test knows which path ran."""

    def __init__(self, program):
        self.checked = 0
        old = program._call_checked

        def checked(*args):
            self.checked += 1
            return old(*args)

        program._call_checked = checked


def fresh(old_path):
    """A binding of the library; `old_path`: run_bound is not used (as with a library built
    before it, or where a tuple's items cannot be read), so every call checks in Python."""
    program = binding.Program(report["library"])
    if old_path:
        program._go_bound = binding._orch_rebind
    return program


shape = (5, 4, 3)


def arrays():
    return np.arange(60, dtype=np.float64).reshape(shape), np.zeros(shape), np.zeros(shape[:2])


# the fast path runs the program through run_bound only, once the arrays are bound
fast = fresh(False)
count = Counting(fast)
x, y, p = arrays()
fast(x, y, p, 1.0, 2)
assert count.checked == 1, "the first call binds the arrays"
for _ in range(3):
    fast(x, y, p, 0.5, 1)
assert count.checked == 1, f"unchanged arrays took the checks in Python ({count.checked - 1} times)"
assert np.allclose(y, 2 * x + 3 * 0.5 * x) and np.allclose(p, y[:, :, 0])
# a new array, and one changed in place, are noticed by the comparison in C
y2 = np.zeros(shape)
fast(x, y2, p, 1.0, 1)
assert count.checked == 2 and np.allclose(y2, x)
y2.shape = (3, 4, 5)
y2[...] = 0.0
fast(np.ones((3, 4, 5)), y2, np.zeros((3, 4)), 1.0, 1)
assert count.checked == 3 and np.allclose(y2, 1.0)


def outcome(program, args):
    try:
        program(*args())
    except Exception as e:  # noqa: BLE001 - compared between the two paths
        return type(e), str(e)
    return None


def bind_then(change):
    """Arguments bound by a good call first, then changed in place by `change`."""

    def make(program):
        x, y, p = arrays()
        program(x, y, p, 1.0, 1)
        change(x, y, p)
        return lambda: (x, y, p, 1.0, 1)

    return make


def readonly(x, y, p):
    y.setflags(write=False)


def retyped(x, y, p):
    y.dtype = np.int64


def resized(x, y, p):
    y.resize((60,), refcheck=False)


def restrided(x, y, p):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # setting strides, numpy >= 2.4
        y.strides = (0, 24, 8)


def fresh_args(make):
    return lambda program: make


x, y, p = arrays()
cases = {
    "dtype": fresh_args(lambda: (x.astype(np.float32), y, p, 1.0, 1)),
    "rank": fresh_args(lambda: (x, y, y, 1.0, 1)),
    "list": fresh_args(lambda: (x.tolist(), y, p, 1.0, 1)),
    "broadcast": fresh_args(lambda: (np.broadcast_to(np.float64(1.0), shape), y, p, 1.0, 1)),
    "shared memory": fresh_args(lambda: (x, x, p, 1.0, 1)),
    "not whole elements": fresh_args(lambda: (np.zeros(shape, dtype=[("a", "f8"), ("b", "i1")])["a"], y, p, 1.0, 1)),
    "scalar type": fresh_args(lambda: (x, y, p, "fast", 1)),
    "integer scalar": fresh_args(lambda: (x, y, p, 1.0, 2.5)),
    "integer range": fresh_args(lambda: (x, y, p, 1.0, 2 ** 63)),
    "bad field and bad scalar": fresh_args(lambda: (x.astype(np.float32), y, p, "fast", 1)),
    "read-only after binding": bind_then(readonly),
    "re-typed after binding": bind_then(retyped),
    "resized after binding": bind_then(resized),
    "broadcast after binding": bind_then(restrided),
    "out of bounds (reported by the library)": fresh_args(lambda: (x, np.zeros((4, 4, 3)), p, 1.0, 1)),
}
for name, make in cases.items():
    new, old = fresh(False), fresh(True)
    got, want = outcome(new, make(new)), outcome(old, make(old))
    assert want is not None, f"{name}: the old path accepted it"
    assert got == want, f"{name}: run_bound path {got!r}, old path {want!r}"
    # and the bound program still works afterwards, through the fast path
    a, b, c = arrays()
    new(a, b, c, 1.0, 1)
    assert np.allclose(b, a), name

# a closed library is a clear error on both paths
for old_path in (False, True):
    program = fresh(old_path)
    program.close()
    try:
        program(x, y, p, 1.0, 1)
    except RuntimeError as e:
        assert "the library was closed" in str(e), e
    else:
        raise AssertionError("a closed library ran")
print("ok")
