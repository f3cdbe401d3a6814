"""A component whose stencil acts on the tile edges (NDSL's region externals from
GridIndexing.axis_offsets): in a layout build orch computes them for the rank's code path."""
from gt4py.cartesian.gtscript import PARALLEL, computation, horizontal, interval, region
from ndsl import orchestrate
from ndsl.constants import X_DIM, Y_DIM, Z_DIM
from ndsl.dsl.typing import Float, FloatField


def edge_values(q: FloatField, value: Float):
    from __externals__ import i_end, i_start, j_end, j_start

    with computation(PARALLEL), interval(...):
        q = q + 1.0
        with horizontal(region[i_start, :], region[i_end, :]):
            q = value
        with horizontal(region[:, j_start], region[:, j_end]):
            q = -value


class EdgeValues:
    def __init__(self, stencil_factory):
        orchestrate(obj=self, config=stencil_factory.config.dace_config)
        grid = stencil_factory.grid_indexing
        origin, domain = grid.get_origin_domain([X_DIM, Y_DIM, Z_DIM])
        self._edges = stencil_factory.from_origin_domain(edge_values, origin=origin, domain=domain, externals=grid.axis_offsets(origin, domain))

    def __call__(self, q, value: float):
        self._edges(q, value)
