"""GT4Py's call interface on orch's own stencils, in Python mode (orch's interpreter) and
compiled: array-likes, `__gt_origin__`, `__gt_dims__`, left-out arguments, exec_info.
Prints one line per case and mode."""
import numpy as np

import orch
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import FORWARD, IJ, PARALLEL, Field, computation, interval


class Wrapped:
    """A storage-like object: numpy sees it through __array_interface__ only."""

    def __init__(self, array, origin=None, dims=None):
        self.array = array
        if origin is not None:
            self.__gt_origin__ = origin
        if dims is not None:
            self.__gt_dims__ = dims

    @property
    def __array_interface__(self):
        return self.array.__array_interface__


def scale(src: Field[np.float64], dst: Field[np.float64], *, factor: np.float64 = 3.0):
    with computation(PARALLEL), interval(...):
        dst = src * factor


def pick(out: Field[np.float64], first: Field[np.float64], second: Field[np.float64] = None, *, w: np.float64, unused: np.float64 = None):
    from __externals__ import FIRST

    with computation(PARALLEL), interval(...):
        if __INLINED(FIRST):
            out = first * w
        else:
            out = first + second * w * unused


def plane(out: Field[IJ, np.float64]):
    with computation(FORWARD), interval(...):
        out = 1.0


def failure(run):
    try:
        run()
    except (TypeError, ValueError) as e:
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return "no error"


for mode in ("python", "build-and-run"):
    orch.set_mode(mode)
    s = gtscript.stencil(backend="gt:cpu_ifirst", definition=scale)
    # writes land in the wrapped array; each field's __gt_origin__ is its default origin,
    # the default domain follows from it, an origin= entry or _all_ overrides it
    src, dst = np.ones((4, 4, 2)), np.zeros((4, 4, 2))
    s(Wrapped(src, origin=(1, 1, 0)), Wrapped(dst, origin=(2, 2, 0)))
    print(mode, "gt_origin", float(dst.sum()), float(dst[2:, 2:, :].sum()))
    dst[...] = 0
    s(Wrapped(src, origin=(1, 1, 0)), Wrapped(dst, origin=(2, 2, 0)), origin={"src": (0, 0, 0)}, domain=(1, 1, 1))
    print(mode, "origin_entry", np.argwhere(dst).tolist())
    dst[...] = 0
    s(Wrapped(src, origin=(1, 1, 0)), Wrapped(dst, origin=(2, 2, 0)), origin=(3, 3, 1), domain=(1, 1, 1), factor=2.0)
    print(mode, "origin_all", np.argwhere(dst).tolist(), float(dst.sum()))
    # axes given in another order: the array is indexed as I, J, K
    kji = np.zeros((2, 3, 4))
    s(np.ones((4, 3, 2)), Wrapped(kji, dims=("K", "J", "I")))
    print(mode, "permuted", float(kji.sum()))
    print(mode, "dims", failure(lambda: gtscript.stencil(backend="gt:cpu_ifirst", definition=plane)(Wrapped(np.zeros((3, 3)), dims=("I", "K")))))
    print(mode, "rank", failure(lambda: gtscript.stencil(backend="gt:cpu_ifirst", definition=plane)(np.zeros((3, 3, 3)))))
    # left-out arguments: a field or scalar the folded stencil never touches may be left out
    first = gtscript.stencil(backend="gt:cpu_ifirst", definition=pick, externals={"FIRST": True})
    both = gtscript.stencil(backend="gt:cpu_ifirst", definition=pick, externals={"FIRST": False})
    out, a, b = np.zeros((2, 2, 2)), np.full((2, 2, 2), 2.0), np.full((2, 2, 2), 5.0)
    first(out, a, w=3.0)
    print(mode, "left_out", float(out[0, 0, 0]))
    both(out, a, b, w=3.0, unused=2.0)
    print(mode, "all_given", float(out[0, 0, 0]))
    print(mode, "field_needed", failure(lambda: both(out, a, w=3.0, unused=2.0)))
    print(mode, "scalar_needed", failure(lambda: both(out, a, b, w=3.0)))
    info = {}
    s(src, dst, exec_info=info)
    print(mode, "exec_info", all(info[k + "_end_time"] > info[k + "_start_time"] for k in ("call", "call_run", "run")))
    # GT4Py raises ValueError for a domain and origin the arrays do not hold
    try:
        s(src, dst, origin=(1, 1, 0), domain=(4, 4, 2))
        print(mode, "too_large no error")
    except ValueError:
        print(mode, "too_large ValueError")
