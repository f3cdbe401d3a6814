"""EdgeValues on the rank ORCH_RANK of the layout ORCH_LAYOUT (a tile of 6 x 6 ranks by default)."""
import os

from edges import EdgeValues
from ndsl import DaceConfig, GridIndexing, QuantityFactory, StencilConfig, StencilFactory, X_DIM, Y_DIM, Z_DIM


def run(calls):
    nx, ny = (int(n) for n in os.environ.get("ORCH_LAYOUT", "6x6").split("x"))
    rank = int(os.environ.get("ORCH_RANK", "0"))
    col, row = rank % nx, rank // nx
    grid = GridIndexing((5, 4, 3), 3, south_edge=row == 0, north_edge=row == ny - 1, west_edge=col == 0, east_edge=col == nx - 1)
    sf = StencilFactory(StencilConfig(DaceConfig(None, "numpy")), grid)
    qf = QuantityFactory(grid)
    q = qf.zeros([X_DIM, Y_DIM, Z_DIM], "")
    comp = EdgeValues(sf)
    for n in range(calls):
        comp(q, 5.0 + n)
    return {"q": q.data}, {}
