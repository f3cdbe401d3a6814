"""Quantity (an array with dims and units) and QuantityFactory, as NDSL's."""
import dataclasses

import numpy as np

from .constants import X_INTERFACE_DIM, Y_INTERFACE_DIM, Z_INTERFACE_DIM


@dataclasses.dataclass
class QuantityHaloSpec:
    """NDSL's: the memory a halo exchange moves, and how many halo points."""

    n_points: int
    strides: tuple
    itemsize: int
    shape: tuple
    origin: tuple
    extent: tuple
    dims: tuple
    numpy_module: object
    dtype: object


class Quantity:
    def __init__(self, data, dims, units="", origin=None, extent=None):
        self.data = data
        self.dims = tuple(dims)
        self.units = units
        self.origin = tuple(origin) if origin is not None else (0,) * len(dims)
        self.extent = tuple(extent) if extent is not None else data.shape

    def halo_spec(self, n_halo):
        return QuantityHaloSpec(n_halo, self.data.strides, self.data.itemsize, self.data.shape, self.origin, self.extent, self.dims, np, self.data.dtype)

    @property
    def view(self):
        return self.data[tuple(slice(o, o + e) for o, e in zip(self.origin, self.extent))]


class QuantityFactory:
    """Allocates Quantities on the full (halo-padded) grid of a GridIndexing."""

    def __init__(self, grid_indexing, dtype=np.float64):
        self._grid = grid_indexing
        self._dtype = dtype

    def _shape(self, dims):
        nx, ny, nz = self._grid.domain
        h = self._grid.n_halo
        sizes = {"x": nx + 2 * h, "y": ny + 2 * h, "z": nz}
        return tuple(sizes[d.replace("_interface", "")] + (1 if d in (X_INTERFACE_DIM, Y_INTERFACE_DIM, Z_INTERFACE_DIM) else 0) for d in dims)

    def zeros(self, dims, units, dtype=None):
        return Quantity(np.zeros(self._shape(dims), dtype=dtype or self._dtype), dims, units)

    def ones(self, dims, units, dtype=None):
        return Quantity(np.ones(self._shape(dims), dtype=dtype or self._dtype), dims, units)

    def empty(self, dims, units, dtype=None):
        return self.zeros(dims, units, dtype)

    def get_quantity_halo_spec(self, dims, n_halo=None, dtype=None):
        """The halo specification of a Quantity of these dims (its compute domain inside the halo)."""
        h = self._grid.n_halo
        q = self.zeros(dims, "", dtype)
        q.origin = tuple(h if d.startswith(("x", "y")) else 0 for d in dims)
        q.extent = tuple(s - 2 * h if d.startswith(("x", "y")) else s for d, s in zip(dims, q.data.shape))
        return q.halo_spec(h if n_halo is None else n_halo)
