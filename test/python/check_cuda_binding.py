"""Checks the generated Python binding of CUDA builds, on libraries built by
test/pythonCuda.test.ts with the CUDA emulation (kernels run on the CPU, device memory is
host memory): `DeviceArray` below poses numpy memory as device memory through
`__cuda_array_interface__`, as CuPy arrays do. Prints "ok".

usage: check_cuda_binding.py '{"prog": {"binding", "library"}, "lookup": {...}}'
  prog(x: IJK, y: IJK written, p: IJ written, a: float64, n: int64): y += n * a * x; p = y[:, :, 0]
  lookup(q: IJK, lev: IJ int64, out: IJK written): out = q[:, :, k + lev] (FORWARD, variable K)
"""
import importlib.util
import json
import sys

import numpy as np

import orch
from orch.library import open_program

builds = json.loads(sys.argv[1])


def load(name):
    spec = importlib.util.spec_from_file_location(f"binding_{name}", builds[name]["binding"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class DeviceArray:
    """numpy memory posing as device memory. `strides`: bytes, or None when C-contiguous,
    as CuPy reports them; `host` may be replaced to change the array in place."""

    def __init__(self, host, readonly=False, version=3, stream=None, **override):
        self.host, self.readonly, self.version, self.stream, self.override = host, readonly, version, stream, override

    @property
    def __cuda_array_interface__(self):
        h = self.host
        cai = {
            "shape": h.shape,
            "typestr": h.dtype.str,
            "data": (h.ctypes.data, self.readonly),
            "strides": None if h.flags.c_contiguous else h.strides,
            "version": self.version,
        }
        if self.version >= 3:
            cai["stream"] = self.stream
        cai.update(self.override)
        return cai


def device_layout(a):
    """The layout the cuda presets' kernels read coalesced: I contiguous (loop order KJI)."""
    return np.asfortranarray(a)


def expect(exc, texts, fn):
    try:
        fn()
    except exc as e:
        for text in [texts] if isinstance(texts, str) else texts:
            assert text in str(e), f"{exc.__name__} message {str(e)!r} lacks {text!r}"
        return e
    raise AssertionError(f"expected {exc.__name__} ({texts})")


prog_binding, lookup_binding = load("prog"), load("lookup")
assert prog_binding.SIGNATURE["target"] == "cuda"
shape = (5, 4, 3)
x0 = np.arange(60, dtype=np.float64).reshape(shape)

# correct results on arrays in the device layout, and on C-ordered ones (strides None)
run = prog_binding.Program(builds["prog"]["library"])
assert run.synchronize is True
for layout in (device_layout, np.ascontiguousarray):
    x, y, p = DeviceArray(layout(x0)), DeviceArray(layout(np.ones(shape))), DeviceArray(layout(np.zeros(shape[:2])))
    run(x, y, p, 0.5, 2)
    assert np.array_equal(y.host, 1 + x0) and np.array_equal(p.host, 1 + x0[:, :, 0]), layout.__name__
    run(x, y, p, 0.5, 2)  # bound: the fast path
    assert np.array_equal(y.host, 1 + 2 * x0), layout.__name__
# version 2 of the interface (no stream entry), and explicit C-order strides
x, y, p = DeviceArray(x0, version=2), DeviceArray(np.zeros(shape), strides=(96, 24, 8)), DeviceArray(np.zeros(shape[:2]))
run(x, y, p, 1.0, 1)
assert np.array_equal(y.host, x0)

# an array changed in place (a CuPy array reshaped, or moved) is rebound
y = DeviceArray(np.zeros(shape))
run(x, y, p, 1.0, 1)
y.host = device_layout(np.zeros(shape))
run(x, y, p, 1.0, 1)
assert np.array_equal(y.host, x0)
x.host, y.host, p.host = np.ones((2, 3, 4)), np.zeros((2, 3, 4)), np.zeros((2, 3))
run(x, y, p, 3.0, 1)
assert np.array_equal(y.host, np.full((2, 3, 4), 3.0)) and np.array_equal(p.host, np.full((2, 3), 3.0))

# argument checks, as on the CPU, and host arrays refused
x, y, p = DeviceArray(device_layout(x0)), DeviceArray(device_layout(np.zeros(shape))), DeviceArray(np.zeros(shape[:2]))
expect(TypeError, ["argument 'x' is a host numpy array", "built for CUDA", "cupy.asarray(x)"], lambda: run(x0, y, p, 1.0, 1))
expect(TypeError, "must be a device array with __cuda_array_interface__", lambda: run([1.0], y, p, 1.0, 1))
expect(TypeError, "has dtype float32, expected float64", lambda: run(DeviceArray(x0.astype(np.float32)), y, p, 1.0, 1))
expect(ValueError, "argument 'p' is a IJ field", lambda: run(x, y, y, 1.0, 1))
expect(ValueError, "broadcast view", lambda: run(DeviceArray(x0, strides=(0, 24, 8)), y, p, 1.0, 1))
expect(ValueError, "not whole 8-byte elements", lambda: run(DeviceArray(x0, strides=(96, 24, 4)), y, p, 1.0, 1))
expect(ValueError, "not aligned", lambda: run(DeviceArray(x0, data=(x0.ctypes.data + 4, False)), y, p, 1.0, 1))
expect(ValueError, "null device pointer", lambda: run(DeviceArray(x0, data=(0, False)), y, p, 1.0, 1))
expect(ValueError, "argument 'y' is read-only", lambda: run(x, DeviceArray(np.zeros(shape), readonly=True), p, 1.0, 1))
expect(TypeError, "masked device array", lambda: run(DeviceArray(x0, mask=object()), y, p, 1.0, 1))
expect(TypeError, "malformed __cuda_array_interface__", lambda: run(DeviceArray(x0, typestr=None), y, p, 1.0, 1))
expect(ValueError, "'x' and 'y' share memory", lambda: run(x, DeviceArray(x.host), p, 1.0, 1))
backwards = DeviceArray(x0[:, :, ::-1])  # negative strides: the span reaches below the pointer
expect(ValueError, "'x' and 'y' share memory", lambda: run(backwards, DeviceArray(x0[:, :, :1]), p, 1.0, 1))
# a read-only array the program only reads is fine; after failed checks the next good call works
run(DeviceArray(x0, readonly=True), y, p, 1.0, 1)
assert np.array_equal(y.host, x0)

# async: the call returns once the kernels are queued; sync waits
run.synchronize = False
y.host[...] = 0
run(x, y, p, 2.0, 1)
run.sync()
assert np.array_equal(y.host, 2 * x0)
run.synchronize = True

# streams: the caller's (an int or an object with .ptr, as CuPy's), then the handle's own again
class Stream:
    ptr = 0x5EED


run.set_stream(Stream())
run.set_stream(None)
run(x, y, p, 1.0, 1)
assert np.array_equal(y.host, 3 * x0)

# errors the kernels record: raised at the call by default, at sync when async, both
# ProgramError (as a CPU build's errors) naming the program and the stencil
q, out = DeviceArray(device_layout(x0)), DeviceArray(device_layout(np.zeros(shape)))
lev = DeviceArray(np.zeros(shape[:2], dtype=np.int64))
find = lookup_binding.Program(builds["lookup"]["library"])
find(q, lev, out)
assert np.array_equal(out.host, x0)
lev.host[...] = 7
names = ["lookup", "level_lookup", "K index 7", "outside its 3 levels"]
expect(lookup_binding.ProgramError, names, lambda: find(q, lev, out))
find.synchronize = False
find(q, lev, out)  # queued: the error is recorded on the device, not raised yet
e = expect(lookup_binding.ProgramError, names, find.sync)
assert isinstance(e, RuntimeError)
find.sync()  # reported once: the record was cleared
lev.host[...] = 0
out.host[...] = 0
find(q, lev, out)
find.sync()
assert np.array_equal(out.host, x0)

# the orch package: bindings it opens follow orch.set_synchronize, and orch.sync waits for all
orch.set_synchronize(False)
opened = open_program({"binding": builds["lookup"]["binding"], "library": builds["lookup"]["library"]}, None)
assert opened.synchronize is False and orch.synchronize() is False
lev.host[...] = -1
opened(q, lev, out)
opened_error = sys.modules[type(opened).__module__].ProgramError
expect(opened_error, names[:2], orch.sync)
orch.set_synchronize(True)
assert opened.synchronize is True
expect(opened_error, names[:2], lambda: opened(q, lev, out))

# closed: a clear error, not a crash
run.close()
expect(RuntimeError, "the library was closed", lambda: run(x, y, p, 1.0, 1))
expect(RuntimeError, "the library was closed", run.sync)
print("ok")
