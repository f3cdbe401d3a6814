"""A test double of NDSL (github.com/NOAA-GFDL/NDSL, 2024.03): the API that components use,
written for orch's tests (CI has neither NDSL nor GT4Py). Stencils run on GT4Py's
`gtscript.stencil` (orch's stand-in when GT4Py is not installed, so on orch's interpreter).
Orchestration without orch is NDSL's with DaCe, which this double does not have: it
refuses a compiled FV3_DACEMODE unless `orch.ndsl.install()` replaced it."""
from .comm.communicator import TileCommunicator
from .comm.mpi import MPIComm
from .comm.partitioner import TilePartitioner
from .constants import X_DIM, X_INTERFACE_DIM, Y_DIM, Y_INTERFACE_DIM, Z_DIM, Z_INTERFACE_DIM
from .dsl.dace.dace_config import DaceConfig, DaCeOrchestration
from .dsl.dace.orchestration import dace_inhibitor, orchestrate, orchestrate_function
from .dsl.dace.wrapped_halo_exchange import WrappedHaloUpdater
from .dsl.stencil import FrozenStencil, GridIndexing, StencilConfig, StencilFactory
from .halo.updater import HaloUpdater
from .quantity import Quantity, QuantityFactory, QuantityHaloSpec

__all__ = [
    "X_DIM", "X_INTERFACE_DIM", "Y_DIM", "Y_INTERFACE_DIM", "Z_DIM", "Z_INTERFACE_DIM",
    "DaceConfig", "DaCeOrchestration", "dace_inhibitor", "orchestrate", "orchestrate_function",
    "FrozenStencil", "GridIndexing", "StencilConfig", "StencilFactory", "Quantity", "QuantityFactory",
    "QuantityHaloSpec", "HaloUpdater", "WrappedHaloUpdater", "TileCommunicator", "TilePartitioner", "MPIComm",
]
