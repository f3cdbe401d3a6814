"""A flux component nesting a del-n damping component (after PyFV3's delnflux.py
structure): both orchestrated, the inner one inlined into the outer's library; the
temporaries allocated in __init__ are reused by every call and by both stencils' passes."""
from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl import orchestrate
from ndsl.constants import X_DIM, Y_DIM, Z_DIM
from ndsl.dsl.typing import Float, FloatField


def copy_field(q: FloatField, d2: FloatField):
    with computation(PARALLEL), interval(...):
        d2 = q


def laplacian_x(d2: FloatField, fx: FloatField, damp: Float):
    with computation(PARALLEL), interval(...):
        fx = damp * (d2[-1, 0, 0] - d2)


def laplacian_y(d2: FloatField, fy: FloatField, damp: Float):
    with computation(PARALLEL), interval(...):
        fy = damp * (d2[0, -1, 0] - d2)


def half(src: FloatField, dst: FloatField):
    with computation(PARALLEL), interval(...):
        dst = 0.5 * src


def add_fluxes(fx: FloatField, fy: FloatField, fx2: FloatField, fy2: FloatField):
    with computation(PARALLEL), interval(...):
        fx = fx + fx2
        fy = fy + fy2


class DelnFluxNoSG:
    """Del-n damping fluxes of order `nord + 1` (an int: the number of passes is compile-time)."""

    def __init__(self, stencil_factory, quantity_factory, nord: int, d2):
        orchestrate(obj=self, config=stencil_factory.config.dace_config)
        self._nord = nord
        self._d2 = d2  # the owner's work array: one array, reached through two components
        self._copy = stencil_factory.from_dims_halo(copy_field, compute_dims=[X_DIM, Y_DIM, Z_DIM], compute_halos=(1, 1))
        self._fx = stencil_factory.from_dims_halo(laplacian_x, compute_dims=[X_DIM, Y_DIM, Z_DIM])
        self._fy = stencil_factory.from_dims_halo(laplacian_y, compute_dims=[X_DIM, Y_DIM, Z_DIM])

    def __call__(self, q, fx2, fy2, damp_c: float):
        self._copy(q, self._d2)
        for n in range(self._nord + 1):
            self._fx(self._d2, fx2, damp_c)
            self._fy(self._d2, fy2, damp_c)
            self._copy(fx2, self._d2)


class DelnFlux:
    def __init__(self, stencil_factory, quantity_factory, nord: int, damp_c: float):
        orchestrate(obj=self, config=stencil_factory.config.dace_config)
        self._damp_c = damp_c
        self._fx2 = quantity_factory.zeros([X_DIM, Y_DIM, Z_DIM], "")
        self._fy2 = quantity_factory.zeros([X_DIM, Y_DIM, Z_DIM], "")
        self._add = stencil_factory.from_dims_halo(add_fluxes, compute_dims=[X_DIM, Y_DIM, Z_DIM])
        self._half = stencil_factory.from_dims_halo(half, compute_dims=[X_DIM, Y_DIM, Z_DIM])
        self._d2 = quantity_factory.zeros([X_DIM, Y_DIM, Z_DIM], "")
        self.d2_half = quantity_factory.zeros([X_DIM, Y_DIM, Z_DIM], "")
        self.delnflux_nosg = DelnFluxNoSG(stencil_factory, quantity_factory, nord, self._d2)

    def __call__(self, q, fx, fy):
        self.delnflux_nosg(q, self._fx2, self._fy2, self._damp_c)
        self._add(fx, fy, self._fx2, self._fy2)
        self._half(self._d2, self.d2_half)
