"""Components with constructs orch cannot compile: each is a located error with a hint."""
import functools

from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl import orchestrate
from ndsl.constants import X_DIM, Y_DIM, Z_DIM
from ndsl.dsl.typing import Float, FloatField


def scale(q: FloatField, factor: Float):
    with computation(PARALLEL), interval(...):
        q = q * factor


def _factor(base, dt):
    return base * dt


class RuntimeList:
    def __init__(self, stencil_factory):
        orchestrate(obj=self, config=stencil_factory.config.dace_config)
        self._scale = stencil_factory.from_dims_halo(scale, compute_dims=[X_DIM, Y_DIM, Z_DIM])

    def __call__(self, u, v):
        for q in [u, v]:
            self._scale(q, 2.0)


class OpaqueAttribute:
    def __init__(self, stencil_factory):
        orchestrate(obj=self, config=stencil_factory.config.dace_config)
        self._scale = stencil_factory.from_dims_halo(scale, compute_dims=[X_DIM, Y_DIM, Z_DIM])
        self._factor = functools.partial(_factor, 2.0)

    def __call__(self, u, dt: float):
        factor = self._factor(dt)
        self._scale(u, factor)


class PlainMethod:
    def __init__(self, stencil_factory):
        orchestrate(obj=self, config=stencil_factory.config.dace_config)
        self._scale = stencil_factory.from_dims_halo(scale, compute_dims=[X_DIM, Y_DIM, Z_DIM])

    def _twice(self, u):
        self._scale(u, 2.0)

    def __call__(self, u):
        self._twice(u)
