"""A d_sw-like chain (after the structure of PyFV3's d_sw.py): ten stencils (eleven calls) on winds,
vorticity and kinetic energy, grid data held on an object, configuration read from a dict
and an enum, and a halo update (a @dace_inhibitor callback of a halo-updater object)
between the stencils that fill the halo and those that read it."""
import enum

from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl import orchestrate
from ndsl.constants import X_DIM, Y_DIM, Z_DIM
from ndsl.dsl.dace.orchestration import dace_inhibitor
from ndsl.dsl.typing import Float, FloatField, FloatFieldIJ


class GridType(enum.Enum):
    CUBED = 0
    DOUBLY_PERIODIC = 4


class GridData:
    """Metric terms, as NDSL keeps them: Quantities on an object."""

    def __init__(self, quantity_factory, dx: float, dy: float):
        self.rdx = quantity_factory.ones([X_DIM, Y_DIM], "1/m")
        self.rdy = quantity_factory.ones([X_DIM, Y_DIM], "1/m")
        self.rarea = quantity_factory.ones([X_DIM, Y_DIM], "1/m2")
        self.rdx.data[...] /= dx
        self.rdy.data[...] /= dy
        self.rarea.data[...] /= dx * dy


class HaloUpdater:
    """A periodic halo exchange of the fields it was given (in place, on the host)."""

    def __init__(self, fields, n_halo):
        self._fields = fields
        self._n = n_halo
        self.calls = 0

    @dace_inhibitor
    def update(self):
        self.calls += 1
        n = self._n
        for q in self._fields:
            a = q.data
            a[:n, :, :] = a[-2 * n:-n, :, :]
            a[-n:, :, :] = a[n:2 * n, :, :]
            a[:, :n, :] = a[:, -2 * n:-n, :]
            a[:, -n:, :] = a[:, n:2 * n, :]


def kinetic_energy(u: FloatField, v: FloatField, ke: FloatField):
    with computation(PARALLEL), interval(...):
        ke = 0.5 * (u * u + v * v)


def vorticity(u: FloatField, v: FloatField, rdx: FloatFieldIJ, rdy: FloatFieldIJ, vort: FloatField):
    with computation(PARALLEL), interval(...):
        vort = (v[1, 0, 0] - v) * rdx - (u[0, 1, 0] - u) * rdy


def divergence(u: FloatField, v: FloatField, rdx: FloatFieldIJ, rdy: FloatFieldIJ, div: FloatField):
    with computation(PARALLEL), interval(...):
        div = (u[1, 0, 0] - u) * rdx + (v[0, 1, 0] - v) * rdy


def damp_vorticity(vort: FloatField, damp_w: Float):
    with computation(PARALLEL), interval(...):
        vort = vort * (1.0 - damp_w)


def smooth_divergence(div: FloatField, out: FloatField, d_con: Float):
    with computation(PARALLEL), interval(...):
        out = div + d_con * 0.25 * (div[1, 0, 0] + div[-1, 0, 0] + div[0, 1, 0] + div[0, -1, 0] - 4.0 * div)


def update_u(u: FloatField, vort: FloatField, ke: FloatField, rdx: FloatFieldIJ, dt: Float):
    with computation(PARALLEL), interval(...):
        u = u + dt * (0.5 * (vort + vort[0, -1, 0]) - (ke - ke[-1, 0, 0]) * rdx)


def update_v(v: FloatField, vort: FloatField, ke: FloatField, rdy: FloatFieldIJ, dt: Float):
    with computation(PARALLEL), interval(...):
        v = v - dt * (0.5 * (vort + vort[-1, 0, 0]) + (ke - ke[0, -1, 0]) * rdy)


def add_divergence_damping(u: FloatField, v: FloatField, div: FloatField, dt: Float):
    with computation(PARALLEL), interval(...):
        u = u + dt * 0.1 * (div[1, 0, 0] - div)
        v = v + dt * 0.1 * (div[0, 1, 0] - div)


def heat_source(heat: FloatField, ke: FloatField, vort: FloatField):
    with computation(PARALLEL), interval(...):
        heat = heat + 0.001 * ke * vort * vort


def area_weight(delp: FloatField, heat: FloatField, rarea: FloatFieldIJ):
    with computation(PARALLEL), interval(...):
        delp = delp + heat * rarea


class DGridShallowWater:
    def __init__(self, stencil_factory, quantity_factory, grid_data, column_namelist: dict, grid_type: GridType, do_heat: bool):
        orchestrate(obj=self, config=stencil_factory.config.dace_config)
        self.grid_data = grid_data
        self._column_namelist = column_namelist
        self._grid_type = grid_type
        self._do_heat = do_heat
        dims = [X_DIM, Y_DIM, Z_DIM]
        self._ke = quantity_factory.zeros(dims, "m2/s2")
        self._vort = quantity_factory.zeros(dims, "1/s")
        self._div = quantity_factory.zeros(dims, "1/s")
        self._div2 = quantity_factory.zeros(dims, "1/s")
        self._halo = HaloUpdater([self._ke, self._vort, self._div, self._div2], stencil_factory.grid_indexing.n_halo)
        make = stencil_factory.from_dims_halo
        self._kinetic_energy = make(kinetic_energy, compute_dims=dims)
        self._vorticity = make(vorticity, compute_dims=dims)
        self._divergence = make(divergence, compute_dims=dims)
        self._damp_vorticity = make(damp_vorticity, compute_dims=dims)
        self._smooth_divergence = make(smooth_divergence, compute_dims=dims)
        self._update_u = make(update_u, compute_dims=dims)
        self._update_v = make(update_v, compute_dims=dims)
        self._divergence_damping = make(add_divergence_damping, compute_dims=dims)
        self._heat_source = make(heat_source, compute_dims=dims)
        self._area_weight = make(area_weight, compute_dims=dims)

    def __call__(self, u, v, delp, heat, dt: float):
        self._kinetic_energy(u, v, self._ke)
        self._vorticity(u, v, self.grid_data.rdx, self.grid_data.rdy, self._vort)
        self._divergence(u, v, self.grid_data.rdx, self.grid_data.rdy, self._div)
        self._damp_vorticity(self._vort, self._column_namelist["damp_w"])
        self._halo.update()
        for n in range(self._column_namelist["nord"]):
            self._smooth_divergence(self._div, self._div2, self._column_namelist["d_con"])
            self._halo.update()
            self._smooth_divergence(self._div2, self._div, self._column_namelist["d_con"])
            self._halo.update()
        self._update_u(u, self._vort, self._ke, self.grid_data.rdx, dt)
        self._update_v(v, self._vort, self._ke, self.grid_data.rdy, dt)
        if self._grid_type == GridType.CUBED:
            self._divergence_damping(u, v, self._div, dt)
        if self._do_heat:
            self._heat_source(heat, self._ke, self._vort)
            self._area_weight(delp, heat, self.grid_data.rarea)
