"""Externals that are objects, not numbers: an axis (`gtscript.I`, `gtscript.Axis("J")`) and
a `types.SimpleNamespace`, nested, as GT4Py's frontend takes them. Prints one line per mode."""
import types

import numpy as np

import orch
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, Field, computation, interval


def shifted(a: Field[np.float64], b: Field[np.float64]):
    from __externals__ import AXIS, NS

    with computation(PARALLEL), interval(...):
        b = a[AXIS - 1] * NS.scale + NS.nested.add


a = np.arange(24.0).reshape(4, 3, 2)
ns = types.SimpleNamespace(scale=2.0, nested=types.SimpleNamespace(add=100))
for mode in ("python", "build-and-run"):
    orch.set_mode(mode)
    for axis in (gtscript.I, gtscript.Axis("J")):
        b = np.zeros_like(a)
        st = gtscript.stencil(backend="gt:cpu_ifirst", definition=shifted, externals={"AXIS": axis, "NS": ns})
        st(a, b, origin=(1, 1, 0), domain=(3, 2, 2))
        expect = np.zeros_like(a)
        expect[1:, 1:, :] = (a[:-1, 1:, :] if str(axis) == "I" else a[1:, :-1, :]) * 2.0 + 100
        print(mode, str(axis), np.array_equal(b, expect))
