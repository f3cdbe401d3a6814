"""StencilFactory, FrozenStencil and GridIndexing, as NDSL's (origin/domain bookkeeping of
one rank's compute domain inside a halo)."""
import numpy as np
from gt4py.cartesian import gtscript

from ..constants import X_DIM, X_INTERFACE_DIM, Y_DIM, Y_INTERFACE_DIM, Z_INTERFACE_DIM


class GridIndexing:
    def __init__(self, domain, n_halo, south_edge=True, north_edge=True, west_edge=True, east_edge=True):
        self.domain = tuple(domain)
        self.n_halo = n_halo
        self.south_edge, self.north_edge, self.west_edge, self.east_edge = south_edge, north_edge, west_edge, east_edge
        self.origin = (n_halo, n_halo, 0)

    @property
    def isc(self):
        return self.n_halo

    @property
    def iec(self):
        return self.n_halo + self.domain[0] - 1

    @property
    def jsc(self):
        return self.n_halo

    @property
    def jec(self):
        return self.n_halo + self.domain[1] - 1

    def origin_compute(self, add=(0, 0, 0)):
        return tuple(o + a for o, a in zip(self.origin, add))

    def domain_compute(self, add=(0, 0, 0)):
        return tuple(d + a for d, a in zip(self.domain, add))

    def axis_offsets(self, origin, domain):
        big = np.iinfo(np.int16).max
        i_start = gtscript.I[0] + self.origin[0] - origin[0] if self.west_edge else gtscript.I[0] - big
        i_end = gtscript.I[-1] + (self.origin[0] + self.domain[0]) - (origin[0] + domain[0]) if self.east_edge else gtscript.I[-1] + big
        j_start = gtscript.J[0] + self.origin[1] - origin[1] if self.south_edge else gtscript.J[0] - big
        j_end = gtscript.J[-1] + (self.origin[1] + self.domain[1]) - (origin[1] + domain[1]) if self.north_edge else gtscript.J[-1] + big
        return {
            "i_start": i_start,
            "local_is": gtscript.I[0] + self.isc - origin[0],
            "i_end": i_end,
            "local_ie": gtscript.I[-1] + self.iec - origin[0] - domain[0] + 1,
            "j_start": j_start,
            "local_js": gtscript.J[0] + self.jsc - origin[1],
            "j_end": j_end,
            "local_je": gtscript.J[-1] + self.jec - origin[1] - domain[1] + 1,
        }

    def get_origin_domain(self, dims, halos=()):
        origin, domain = list(self.origin_compute()), list(self.domain_compute())
        for i, d in enumerate(dims):
            if d in (X_INTERFACE_DIM, Y_INTERFACE_DIM, Z_INTERFACE_DIM):
                domain[i] += 1
            if i < len(halos) and d in (X_DIM, X_INTERFACE_DIM, Y_DIM, Y_INTERFACE_DIM):
                origin[i] -= halos[i]
                domain[i] += 2 * halos[i]
        return tuple(origin), tuple(domain)


class StencilConfig:
    def __init__(self, dace_config, backend="numpy"):
        self.dace_config = dace_config
        self.backend = backend


class FrozenStencil:
    """A stencil object with its origin and domain fixed at construction."""

    def __init__(self, func, origin, domain, stencil_config, externals=None, skip_passes=()):
        self.origin = tuple(origin)
        self.domain = tuple(domain)
        self.stencil_config = stencil_config
        self.externals = dict(externals or {})
        self._func_name = func.__name__
        self.stencil_object = gtscript.stencil(backend=stencil_config.backend, definition=func, externals=self.externals)

    def __call__(self, *args, **kwargs):
        if "origin" in kwargs or "domain" in kwargs:
            raise TypeError("origin and domain cannot be passed to FrozenStencil call")
        args = [a.data if hasattr(a, "dims") else a for a in args]
        kwargs = {k: v.data if hasattr(v, "dims") else v for k, v in kwargs.items()}
        self.stencil_object(*args, origin=self.origin, domain=self.domain, **kwargs)


class StencilFactory:
    def __init__(self, config, grid_indexing):
        self.config = config
        self.grid_indexing = grid_indexing

    @property
    def backend(self):
        return self.config.backend

    def from_origin_domain(self, func, origin, domain, externals=None, skip_passes=()):
        return FrozenStencil(func, origin, domain, self.config, externals=externals, skip_passes=skip_passes)

    def from_dims_halo(self, func, compute_dims, compute_halos=(), externals=None, skip_passes=()):
        origin, domain = self.grid_indexing.get_origin_domain(compute_dims, compute_halos)
        return self.from_origin_domain(func, origin, domain, externals=externals, skip_passes=skip_passes)
