"""gtscript.stencil(backend, definition, externals={...}) built and run by orch: the externals
the stencil object was made with reach the compiled build (and its cache key), as they reach
Python mode. Prints one line per case."""
import numpy as np

import orch
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl.dsl.typing import FloatField

import helpers


def scaled(a: FloatField, b: FloatField):
    from __externals__ import SCALE, N, HELPER

    with computation(PARALLEL), interval(...):
        b = HELPER(a) * SCALE + N


a = np.arange(12.0).reshape(2, 3, 2)
for mode in ("python", "build-and-run", "run"):
    orch.set_mode(mode)
    for scale, n in ((2.0, 1), (3.0, 1), (2.0, 5)):
        b = np.zeros_like(a)
        st = gtscript.stencil(backend="gt:cpu_ifirst", definition=scaled, externals={"SCALE": scale, "N": n, "HELPER": helpers.twice})
        st(a, b)
        ok = np.array_equal(b, 2.0 * a * scale + n)
        print(mode, scale, n, ok)
