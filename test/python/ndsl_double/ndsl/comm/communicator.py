"""TileCommunicator, as NDSL's: a comm (mpi4py-like) and a TilePartitioner; components get
their halo updaters from it (`comm.get_scalar_halo_updater([spec, ...])`)."""
from ..halo.updater import HaloUpdater
from .partitioner import DIRECTIONS, TilePartitioner


class TileCommunicator:
    def __init__(self, comm, partitioner, force_cpu=False, timer=None):
        self.comm = comm
        self.partitioner = partitioner
        self._last_halo_tag = 0

    @classmethod
    def from_layout(cls, comm, layout, force_cpu=False, timer=None):
        return cls(comm, TilePartitioner(layout))

    @property
    def rank(self):
        return self.comm.Get_rank()

    @property
    def boundaries(self):
        return {d: self.partitioner.boundary(d, self.rank) for d in DIRECTIONS}

    def _device_synchronize(self):
        pass

    def _get_halo_tag(self):
        self._last_halo_tag += 1
        return self._last_halo_tag

    def get_scalar_halo_updater(self, specifications):
        if len(specifications) == 0:
            raise RuntimeError("Cannot create updater with specifications list")
        if specifications[0].n_points == 0:
            raise ValueError("cannot perform a halo update on zero halo points")
        return HaloUpdater.from_scalar_specifications(self, specifications, self.boundaries.values(), self._get_halo_tag())
