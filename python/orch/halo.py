"""halo_update(q, n), halo_update_start(q, n), halo_update_wait(q) as plain Python.

Compiled programs exchange halos with MPI inside the library (docs/mpi.md). Run as Python
(ORCH_MODE=python) a program is one process, so it is one rank: on a periodic tile
(ORCH_BOUNDARY=periodic) its halo is filled from its own opposite side, and on a tile
with edges (the default) there is nothing to exchange. Several ranks need a compiled
mode, or orch's interpreter, which simulates them in one process."""
import os

import numpy as np

from . import layout
from .errors import LayoutError

_pending = {}


def _one_rank():
    s = layout._current()
    if s and s.get("layout") not in (None, "1x1"):
        raise LayoutError(f"halo_update in Python mode runs one rank, but the layout is {s['layout']}: run the program compiled (ORCH_MODE=run or build-and-run) under mpirun")
    return int(s.get("halo", os.environ.get("ORCH_HALO", "3"))) if s else int(os.environ.get("ORCH_HALO", "3"))


def _exchange(fields, width):
    halo = _one_rank()
    if not 1 <= width <= halo:
        raise ValueError(f"halo width {width} is outside 1..{halo} (the arrays' halo)")
    if layout.boundary() != "periodic":
        return
    for q in fields:
        nx, ny = q.shape[0] - 2 * halo, q.shape[1] - 2 * halo
        lo, hi = halo, halo + nx
        # edges first, then the corners from the rows just filled, as one rank of the
        # compiled exchange sends and receives them (every strip from the values before)
        src = q.copy()
        ci = {-1: slice(lo, lo + width), 0: slice(lo, hi), 1: slice(hi - width, hi)}
        cj = {-1: slice(halo, halo + width), 0: slice(halo, halo + ny), 1: slice(halo + ny - width, halo + ny)}
        hi_ = {-1: slice(lo - width, lo), 0: slice(lo, hi), 1: slice(hi, hi + width)}
        hj = {-1: slice(halo - width, halo), 0: slice(halo, halo + ny), 1: slice(halo + ny, halo + ny + width)}
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                if di or dj:
                    # what went towards (di, dj) arrives on the opposite side
                    q[hi_[-di], hj[-dj]] = src[ci[di], cj[dj]]


def halo_update(*args):
    *fields, width = args
    _exchange(fields, int(width))


def halo_update_start(*args):
    *fields, width = args
    key = tuple(sorted(id(f) for f in fields))
    # pack now, as the compiled exchange does: later writes are not sent
    _pending[key] = (fields, int(width), [np.array(f, copy=True) for f in fields])


def halo_update_wait(*fields):
    key = tuple(sorted(id(f) for f in fields))
    if key not in _pending:
        raise RuntimeError("halo_update_wait without a halo_update_start of the same fields")
    started, width, copies = _pending.pop(key)
    for f, c in zip(started, copies):
        _exchange([c], width)
        halo = _one_rank()
        # only the ring of halo points the exchange fills comes from it
        mask = np.zeros(f.shape[:2], dtype=bool)
        mask[halo - width:f.shape[0] - halo + width, halo - width:f.shape[1] - halo + width] = True
        mask[halo:f.shape[0] - halo, halo:f.shape[1] - halo] = False
        f[mask] = c[mask]
