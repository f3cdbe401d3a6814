"""A component whose __call__ takes a State: a dataclass of Quantities (as PyFV3's
DycoreState), plus a float and an int (a runtime loop count) as arguments."""
import dataclasses

from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from ndsl import Quantity, orchestrate
from ndsl.constants import X_DIM, Y_DIM, Z_DIM
from ndsl.dsl.typing import Float, FloatField


@dataclasses.dataclass
class TracerState:
    qvapor: Quantity
    qliquid: Quantity
    pt: Quantity


def condense(qvapor: FloatField, qliquid: FloatField, pt: FloatField, rate: Float, latent: Float):
    with computation(PARALLEL), interval(...):
        if qvapor > 0.5:
            dq = rate * (qvapor - 0.5)
            qvapor = qvapor - dq
            qliquid = qliquid + dq
            pt = pt + latent * dq


class Condensation:
    def __init__(self, stencil_factory, latent: float):
        orchestrate(obj=self, config=stencil_factory.config.dace_config)
        self._latent = latent
        self._condense = stencil_factory.from_dims_halo(condense, compute_dims=[X_DIM, Y_DIM, Z_DIM])

    def __call__(self, state: TracerState, rate: float, n_steps: int):
        for step in range(n_steps):
            self._condense(state.qvapor, state.qliquid, state.pt, rate, self._latent)
