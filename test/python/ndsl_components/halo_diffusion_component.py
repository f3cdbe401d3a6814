"""An NDSL component with halo updates between its stencils, through NDSL's
WrappedHaloUpdater (`comm.get_scalar_halo_updater`): the diffusion of
fixtures/layouts/halo_diffusion.py (`diffuse_periodic`), written as NDSL code, so the
interpreter's simulation of that program is its oracle. The updaters exchange the
quantities of `halo_state`: by default the state the component is called with and its own
temporary (the component's own arrays: compiled into the library's MPI exchange), or
Quantities made elsewhere (called back to NDSL's updater)."""
import dataclasses

from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl import Quantity, WrappedHaloUpdater, orchestrate
from ndsl.constants import X_DIM, Y_DIM, Z_DIM
from ndsl.dsl.typing import Float, FloatField


def laplacian(q: FloatField, lap: FloatField):
    with computation(PARALLEL), interval(...):
        lap = q[1, 0, 0] + q[-1, 0, 0] + q[0, 1, 0] + q[0, -1, 0] + 0.5 * (q[1, 1, 0] + q[-1, -1, 0] + q[1, -1, 0] + q[-1, 1, 0]) - 6.0 * q


def hyperdiffuse(q: FloatField, lap: FloatField, nu: Float):
    with computation(PARALLEL), interval(...):
        q = q - nu * (lap[1, 0, 0] + lap[-1, 0, 0] + lap[0, 1, 0] + lap[0, -1, 0] - 4.0 * lap)


def decay(s: FloatField, nu: Float):
    with computation(PARALLEL), interval(...):
        s = s * (1.0 - nu) + nu * s * s


@dataclasses.dataclass
class DiffusionState:
    q: Quantity
    r: Quantity
    s: Quantity


class HaloDiffusion:
    def __init__(self, stencil_factory, quantity_factory, comm, state, nu: float, n_steps: int = 3, elsewhere: bool = False):
        orchestrate(obj=self, config=stencil_factory.config.dace_config)
        dims = [X_DIM, Y_DIM, Z_DIM]
        self._laplacian = stencil_factory.from_dims_halo(laplacian, compute_dims=dims)
        self._hyperdiffuse = stencil_factory.from_dims_halo(hyperdiffuse, compute_dims=dims)
        self._decay = stencil_factory.from_dims_halo(decay, compute_dims=dims)
        self._lap = quantity_factory.zeros(dims, "")
        self._nu = nu
        self._n_steps = n_steps
        two = quantity_factory.get_quantity_halo_spec(dims, n_halo=2)
        one = quantity_factory.get_quantity_halo_spec(dims, n_halo=1)
        fields, lap = state, {"lap": self._lap}
        if elsewhere:
            # other Quantities over the same memory: not arrays the component binds
            fields = {n: Quantity(getattr(state, n).data[...], dims) for n in ("q", "r")}
            lap = {"lap": Quantity(self._lap.data[...], dims)}
        self._q_r = WrappedHaloUpdater(comm.get_scalar_halo_updater([two, two]), fields, ["q", "r"], comm=comm)
        self._lap_halo = WrappedHaloUpdater(comm.get_scalar_halo_updater([one]), lap, ["lap"], comm=comm)

    def __call__(self, state: DiffusionState):
        for it in range(self._n_steps):
            # the interior stencil runs while the messages of q and r travel
            self._q_r.start()
            self._decay(state.s, self._nu)
            self._q_r.wait()
            self._laplacian(state.q, self._lap)
            self._lap_halo.update()
            self._hyperdiffuse(state.q, self._lap, self._nu)
            self._laplacian(state.r, self._lap)
            self._lap_halo.update()
            self._hyperdiffuse(state.r, self._lap, self._nu)
