"""Stencils called without domain=: GT4Py's default domain is what every field holds from
its origin less how far past the domain's end the stencil touches it (reads at +1 through a
temporary, writes at K+1). Prints one line per case and mode."""
import numpy as np

import orch
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import FORWARD, IJ, K, PARALLEL, Field, computation, interval


def lower_dims(field_3d: Field[np.float64], field_2d: Field[IJ, np.float64], field_1d: Field[K, np.float64]):
    with computation(PARALLEL):
        with interval(0, -1):
            tmp = field_2d + field_1d[1]
        with interval(-1, None):
            tmp = field_2d + field_1d[0]
    with computation(PARALLEL):
        with interval(0, 1):
            field_3d = tmp[1, 0, 0] + field_1d[1]
        with interval(1, None):
            field_3d[0, 0, 0] = tmp[-1, 0, 0]


def shift_up(A: Field[np.float64], B: Field[np.float64]):
    with computation(FORWARD), interval(...):
        B[0, 0, 1] = A


for mode in ("python", "build-and-run"):
    orch.set_mode(mode)
    f3 = np.zeros((6, 6, 6))
    f2 = np.zeros((6, 6))
    f1 = np.ones(6)
    gtscript.stencil(backend="gt:cpu_ifirst", definition=lower_dims)(f3, f2, f1, origin=(1, 1, 0))
    # domain (4, 5, 6): I stops one short of the array for the read tmp[1, 0, 0]
    expect = np.zeros((6, 6, 6))
    expect[1:5, 1:6, 0] = 2.0
    expect[1:5, 1:6, 1:] = 1.0
    print(mode, "lower_dims", np.array_equal(f3, expect))

    A = np.zeros((1, 1, 4))
    A[...] = np.arange(40.0, 44.0)
    B = np.zeros((1, 1, 4))
    gtscript.stencil(backend="gt:cpu_ifirst", definition=shift_up)(A, B)
    # domain K = 3: the write at K+1 must stay inside B's 4 levels
    print(mode, "shift_up", B.ravel().tolist())
