"""One rank of the NDSL halo component (halo_diffusion_component.py), as a model driver
runs it under mpirun: orch.ndsl.install(), a TileCommunicator of the layout, the
component, one call. FV3_DACEMODE picks the mode; ORCH_LAYOUT, ORCH_DOMAIN (per rank)
and ORCH_BOUNDARY the layout.

usage: [mpirun -np N] halo_drive.py FOLDER [elsewhere]

Reads FOLDER/rank<r>/{q,r,s}.npy, writes FOLDER/rank<r>/{q,r,s}.out.npy and
FOLDER/rank<r>/report.json: the mode, and how many exchanges NDSL's updaters ran in Python."""
import json
import os
import sys
from pathlib import Path

import numpy as np

import orch  # first: stand-ins for GT4Py when it is not installed
import orch.ndsl

orch.ndsl.install()

from ndsl import DaceConfig, GridIndexing, HaloUpdater, MPIComm, QuantityFactory, StencilConfig, StencilFactory, TileCommunicator, TilePartitioner  # noqa: E402
from ndsl.constants import X_DIM, Y_DIM, Z_DIM  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from halo_diffusion_component import DiffusionState, HaloDiffusion  # noqa: E402

folder = sys.argv[1]
elsewhere = len(sys.argv) > 2 and sys.argv[2] == "elsewhere"
layout = tuple(int(n) for n in (os.environ.get("ORCH_LAYOUT") or "1x1").split("x"))
nx, ny, nz = (int(n) for n in os.environ["ORCH_DOMAIN"].split(","))
mpi = MPIComm()
rank = orch.rank()

exchanges = []
start = HaloUpdater.start


def counted(self, *args, **kwargs):
    exchanges.append(self._tag)
    return start(self, *args, **kwargs)


HaloUpdater.start = counted

grid = GridIndexing((nx, ny, nz), 3)
stencil_factory = StencilFactory(StencilConfig(DaceConfig(None, "numpy")), grid)
quantity_factory = QuantityFactory(grid)
here = os.path.join(folder, f"rank{rank}")
fields = {}
for name in "qrs":
    fields[name] = quantity_factory.zeros([X_DIM, Y_DIM, Z_DIM], "")
    fields[name].data[...] = np.load(os.path.join(here, f"{name}.npy"))
state = DiffusionState(**fields)
comm = TileCommunicator(mpi, TilePartitioner(layout))
component = HaloDiffusion(stencil_factory, quantity_factory, comm, state, nu=0.01, elsewhere=elsewhere)
component(state)
for name in "qrs":
    np.save(os.path.join(here, f"{name}.out.npy"), fields[name].data)
with open(os.path.join(here, "report.json"), "w") as f:
    json.dump({"rank": rank, "mode": orch.mode(), "python_exchanges": len(exchanges)}, f)
