"""A Rayleigh-damping-like NDSL component (after PyFV3's ray_fast.py structure): winds
relaxed above a cutoff pressure, on the top `n_sponge` levels (an int: a compile-time K
bound), with a float cutoff (runtime) nudged by the model top pressure at each call."""
from gt4py.cartesian.gtscript import FORWARD, PARALLEL, computation, interval
from ndsl import orchestrate
from ndsl.constants import X_DIM, Y_DIM, Z_DIM
from ndsl.dsl.typing import Float, FloatField, FloatFieldIJ


def ray_damp_winds(u: FloatField, v: FloatField, pfull: FloatField, dt: Float, rf_cutoff_nudge: Float):
    from __externals__ import tau

    with computation(PARALLEL), interval(...):
        if pfull < rf_cutoff_nudge:
            rf = dt / tau * (1.0 - pfull / rf_cutoff_nudge)
            u = u / (1.0 + rf)
            v = v / (1.0 + rf)


def column_energy(u: FloatField, v: FloatField, energy: FloatFieldIJ):
    with computation(FORWARD), interval(0, 1):
        energy = 0.5 * (u * u + v * v)
    with computation(FORWARD), interval(1, None):
        energy = energy + 0.5 * (u * u + v * v)


class RayleighDamping:
    def __init__(self, stencil_factory, quantity_factory, rf_cutoff: float, tau: float, n_sponge: int, n_iter: int = 2):
        orchestrate(obj=self, config=stencil_factory.config.dace_config)
        grid = stencil_factory.grid_indexing
        self._rf_cutoff = rf_cutoff
        self._n_iter = n_iter
        origin, domain = grid.get_origin_domain([X_DIM, Y_DIM, Z_DIM])
        self._damp = stencil_factory.from_origin_domain(
            ray_damp_winds, origin=origin, domain=(domain[0], domain[1], n_sponge), externals={"tau": tau}
        )
        self._energy = stencil_factory.from_dims_halo(column_energy, compute_dims=[X_DIM, Y_DIM, Z_DIM])
        self.energy = quantity_factory.zeros([X_DIM, Y_DIM], "J")

    def __call__(self, u, v, pfull, dt: float, ptop: float):
        rf_cutoff_nudge = self._rf_cutoff + min(100.0, 10.0 * ptop)
        for it in range(self._n_iter):
            self._damp(u, v, pfull, dt / self._n_iter, rf_cutoff_nudge)
        self._energy(u, v, self.energy)
