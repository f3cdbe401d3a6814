"""Per-call overhead of a program library called from Python through ctypes with
arguments bound once (the fast path the Python binding uses). Prints one JSON line.

usage: python3 python_call_overhead.py LIB SYMBOL FIELDS [CALLS]"""

import ctypes
import json
import sys
import time

import numpy as np


class OrchArray(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("shape", ctypes.c_int64 * 3), ("strides", ctypes.c_int64 * 3)]


def main() -> None:
    lib_path, sym, nfields = sys.argv[1], sys.argv[2], int(sys.argv[3])
    calls = int(sys.argv[4]) if len(sys.argv) > 4 else 200000
    lib = ctypes.CDLL(lib_path)
    init = getattr(lib, f"{sym}_init")
    init.restype = ctypes.c_void_p
    run = getattr(lib, f"{sym}_run")
    run.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    run.restype = ctypes.c_int
    fields = [np.ones((1, 1, 1)) for _ in range(nfields)]
    arrays = [OrchArray(f.ctypes.data, (1, 1, 1), (1, 1, 1)) for f in fields]
    scalars = [ctypes.c_int64(1) for _ in range(3)] + [ctypes.c_int64(0) for _ in range(3 * nfields)]
    ptrs = [ctypes.cast(ctypes.pointer(a), ctypes.c_void_p) for a in arrays] + [ctypes.cast(ctypes.pointer(s), ctypes.c_void_p) for s in scalars]
    args = (ctypes.c_void_p * len(ptrs))(*[p.value for p in ptrs])
    handle = ctypes.c_void_p(init())
    for _ in range(1000):
        run(handle, args)
    t0 = time.perf_counter()
    for _ in range(calls):
        run(handle, args)
    dt = time.perf_counter() - t0
    print(json.dumps({"fields": nfields, "calls": calls, "ns_per_call": dt / calls * 1e9}))


main()
