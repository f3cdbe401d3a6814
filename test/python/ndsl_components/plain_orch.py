"""A component with no NDSL at all: orch.ndsl's decorators directly, gtscript.stencil(...)
objects on self, arrays, a float, an int and a dict of settings."""
import numpy as np
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval

from orch.ndsl import dace_inhibitor, orchestrate

Field = gtscript.Field[np.float64]


def relax(q: Field, target: Field, weight: np.float64):
    with computation(PARALLEL), interval(...):
        q = q + weight * (target - q)


def add_source(q: Field, source: Field, scale: np.float64):
    with computation(PARALLEL), interval(...):
        q = q + scale * source


class Nudging:
    def __init__(self, shape, weight: float, n_sub: int, settings: dict):
        orchestrate(obj=self, config=None)
        self._relax = gtscript.stencil(backend="numpy", definition=relax)
        self._source = gtscript.stencil(backend="numpy", definition=add_source)
        self._target = np.full(shape, 2.0)
        self._target[:, :, 0] = 3.0
        self._weight = weight
        self._n_sub = n_sub
        self._settings = settings
        self.log = []

    @dace_inhibitor
    def _report(self, step: int):
        self.log.append(step)

    def __call__(self, q, source, dt: float):
        nx, ny, nz = q.shape
        for step in range(self._n_sub):
            self._relax(q, self._target, self._weight * dt, origin=(1, 1, 0), domain=(nx - 2, ny - 2, nz))
            if self._settings["with_source"]:
                self._source(q, source, self._settings["source_scale"] / self._n_sub, origin=(0, 0, 0), domain=(nx, ny, nz))
            self._report(step)
