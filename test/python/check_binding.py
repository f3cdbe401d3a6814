"""Checks the compiled-mode Python binding from a user's point of view: argument checks
with clear exceptions, rebinding of new or reshaped arrays, strided views, callbacks
that raise or return the wrong type, and the run-mode cache check. Prints "ok".

usage: ORCH_MODE=build-and-run run_binding_checks.py WORK_DIR
"""
import importlib
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np

import orch

work = Path(sys.argv[1])
(work / "checked.py").write_text(textwrap.dedent('''
    from gt4py.cartesian.gtscript import FORWARD, PARALLEL, computation, interval
    from ndsl.dsl.typing import Float, FloatField, FloatFieldIJ

    from orch import callback, compiletime, program, stencil

    @stencil
    def axpy(x: FloatField, y: FloatField, a: Float):
        with computation(PARALLEL), interval(...):
            y = y + a * x

    @stencil
    def to_plane(x: FloatField, p: FloatFieldIJ):
        with computation(FORWARD), interval(0, 1):
            p = x

    @callback
    def weight(a: float) -> float:
        if a < 0.0:
            raise ValueError(f"negative weight {a}")
        return 2.0 * a

    @callback
    def count(a: float) -> int:
        return a  # wrong on purpose: the library passes a float, Python returns it as is

    @program
    def prog(x: FloatField, y: FloatField, p: FloatFieldIJ, a: Float, n: int = 1, twice: compiletime(bool) = False):
        w = weight(a)
        for i in range(n):
            axpy(x, y, w)
        if twice:
            axpy(x, y, w)
        to_plane(y, p)

    @program
    def counted(x: FloatField, y: FloatField, a: Float):
        n = count(a)
        for i in range(n):
            axpy(x, y, 1.0)
'''))
sys.path.insert(0, str(work))
checked = importlib.import_module("checked")


def expect(exc, text, fn):
    try:
        fn()
    except exc as e:
        assert text in str(e), f"{exc.__name__} message {str(e)!r} lacks {text!r}"
        return e
    raise AssertionError(f"expected {exc.__name__} ({text})")


shape = (5, 4, 3)
x = np.arange(60, dtype=np.float64).reshape(shape)
y = np.zeros(shape)
p = np.zeros(shape[:2])

# a call, defaults applied; a compile-time argument picks another library
checked.prog(x, y, p, 1.0)
assert np.allclose(y, 2 * x) and np.allclose(p, 2 * x[:, :, 0])
checked.prog(x, y, p, 1.0, n=2, twice=True)
assert np.allclose(y, 2 * x + 3 * 2 * x)

# argument checks
expect(TypeError, "dtype float32, expected float64", lambda: checked.prog(x.astype(np.float32), y, p, 1.0))
expect(ValueError, "is a IJ field", lambda: checked.prog(x, y, y, 1.0))
expect(TypeError, "must be a numpy array", lambda: checked.prog(x.tolist(), y, p, 1.0))


class DeviceArray:
    """What a CuPy array offers the binding: a CUDA build's argument, refused by a CPU build."""
    __cuda_array_interface__ = {"shape": shape, "typestr": "<f8", "data": (x.ctypes.data, False), "strides": None, "version": 3}


expect(TypeError, "is a device array (__cuda_array_interface__), but the program was built for the CPU", lambda: checked.prog(DeviceArray(), y, p, 1.0))
expect(ValueError, "broadcast view", lambda: checked.prog(np.broadcast_to(np.float64(1.0), shape), y, p, 1.0))
expect(ValueError, "share memory", lambda: checked.prog(x, x, p, 1.0))
ro = y.copy()
ro.setflags(write=False)
expect(ValueError, "read-only", lambda: checked.prog(x, ro, p, 1.0))
expect(TypeError, "argument 'a' must be a number", lambda: checked.prog(x, y, p, "fast"))
expect(TypeError, "argument 'n' must be an integer", lambda: checked.prog(x, y, p, 1.0, n=2.5))
expect(TypeError, "compile-time values", lambda: checked.prog(x, y, p, 1.0, twice=[1]))
expect(TypeError, "argument 'n' must be an integer (int64), got 9223372036854775808", lambda: checked.prog(x, y, p, 1.0, n=2 ** 63))
# scalars are packed together; what that refuses takes the per-scalar conversions, as before
y[...] = 0
checked.prog(x, y, p, np.float32(0.5), n=np.int64(2))
assert np.allclose(y, 2 * x)
y[...] = 0
checked.prog(x, y, p, "0.5", n=True)
assert np.allclose(y, x)
# a failed check leaves nothing half-bound: the next good call works
y[...] = 0
checked.prog(x, y, p, 1.0)
assert np.allclose(y, 2 * x)

# a new array (same shape) is rebound, the old one is left alone
y2 = np.zeros(shape)
checked.prog(x, y2, p, 1.0)
assert np.allclose(y2, 2 * x) and np.allclose(y, 2 * x)
# an array resized in place is rebound (its shape changed)
big = np.arange(60, dtype=np.float64).reshape(shape).copy()
out = np.zeros(shape)
checked.prog(big, out, p, 1.0)
big.resize((6, 4, 3), refcheck=False)
big[...] = 1.0
out2, p2 = np.zeros((6, 4, 3)), np.zeros((6, 4))
checked.prog(big, out2, p2, 1.0)
assert np.allclose(out2, 2.0) and np.allclose(p2, 2.0)


def in_place_changes():
    """Arrays changed in place after they were bound (same object): each is rebound and
    checked again, never used through what was bound."""
    # resized away and back: same shape and strides, but its old memory was freed
    back = np.zeros(shape)
    checked.prog(x, back, p, 1.0)
    freed = back.ctypes.data
    back.resize((600, 4, 3), refcheck=False)
    back.resize(shape, refcheck=False)
    assert back.ctypes.data != freed, "numpy kept the block: this check tests nothing"
    back[...] = 0.0
    checked.prog(x, back, p, 1.0)
    assert np.allclose(back, 2 * x), "the call wrote the freed block"
    # reshaped
    flat = np.zeros(shape)
    checked.prog(x, flat, p, 1.0)
    flat.shape = (3, 4, 5)
    flat[...] = 0.0
    checked.prog(np.ones((3, 4, 5)), flat, np.zeros((3, 4)), 1.0)
    assert np.allclose(flat, 2.0)
    # re-strided, contiguity kept (numpy changes only the strides, not its header)
    view = np.arange(240, dtype=np.float64).reshape(10, 4, 6)[::2, :, ::2]
    out = np.zeros(shape)
    checked.prog(view, out, p, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # setting strides, numpy >= 2.4
        view.strides = (16, 48, 384)
    out[...] = 0.0
    checked.prog(view, out, p, 1.0)
    assert np.allclose(out, 2 * view)
    # re-typed
    out.dtype = np.int64
    expect(TypeError, "dtype int64, expected float64", lambda: checked.prog(x, out, p, 1.0))
    # made read-only after it was bound: the written field is refused
    frozen = np.zeros(shape)
    checked.prog(x, frozen, p, 1.0)
    frozen.setflags(write=False)
    expect(ValueError, "read-only", lambda: checked.prog(x, frozen, p, 1.0))


in_place_changes()
# the same where the binding cannot read numpy's header (not CPython): it compares attributes
bound = next(b for b in checked.prog._dispatch.__globals__["_bound"].values() if hasattr(b, "close"))
binding = sys.modules[type(bound).__module__]
binding._CPYTHON = False
in_place_changes()
binding._CPYTHON = True

# strided (non-contiguous) and Fortran-ordered arrays are passed as they are
xs = np.arange(240, dtype=np.float64).reshape(10, 4, 6)[::2, :, ::2]
ys = np.zeros((10, 4, 6))[::2, :, ::2]
checked.prog(xs, ys, p, 1.0)
assert np.allclose(ys, 2 * xs)
xf, yf = np.asfortranarray(x), np.asfortranarray(np.zeros(shape))
checked.prog(xf, yf, p, 1.0)
assert np.allclose(yf, 2 * x)
expect(ValueError, "not whole", lambda: checked.prog(np.zeros(shape, dtype=[("a", "f8"), ("b", "i1")])["a"], y, p, 1.0))

# a callback that raises: the exception comes out of the call, with a note
e = expect(ValueError, "negative weight -1.0", lambda: checked.prog(x, y, p, -1.0))
assert any("weight" in n for n in getattr(e, "__notes__", [])), e.__notes__
# a callback returning the wrong type
expect(TypeError, "declared to return int64", lambda: checked.counted(x, y, 2.5))

# a stencil called directly from Python runs as its own compiled entry, GT4Py style
xs, ys = np.arange(60, dtype=np.float64).reshape(shape), np.zeros(shape)
checked.axpy(xs, ys, 2.0, origin=(1, 0, 0), domain=(3, 4, 3))
want = np.zeros(shape)
want[1:4] = 2.0 * xs[1:4]
assert np.array_equal(ys, want), ys
checked.axpy(xs, ys, a=1.0)
assert np.array_equal(ys, want + xs)

# the mode can change after compiled calls: the generated __call__ then runs the program as Python
orch.set_mode("python")
y3 = np.zeros(shape)
checked.prog(x, y3, p, 1.0, n=2)
assert np.allclose(y3, 4 * x)
orch.set_mode("build-and-run")

# a call after the library was closed is a clear error, not a crash
bound = next(b for b in checked.prog._dispatch.__globals__["_bound"].values() if hasattr(b, "close"))
bound.close()
expect(RuntimeError, "the library was closed", lambda: bound(x, y, p, 1.0, 1))

print("ok")
