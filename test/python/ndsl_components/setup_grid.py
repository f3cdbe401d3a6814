"""A one-rank NDSL setup for the fixtures: GridIndexing, factories, DaceConfig from FV3_DACEMODE."""
import numpy as np
from ndsl import DaceConfig, GridIndexing, QuantityFactory, StencilConfig, StencilFactory


def factories(nx=8, ny=7, nz=6, halo=3):
    grid = GridIndexing((nx, ny, nz), halo)
    config = StencilConfig(DaceConfig(None, "numpy"))
    return StencilFactory(config, grid), QuantityFactory(grid)


def smooth(shape, seed=0.0):
    idx = np.meshgrid(*(np.arange(n, dtype=np.float64) for n in shape), indexing="ij")
    out = np.full(shape, 1.0 + seed)
    for n, x in enumerate(idx):
        out = out + np.sin(0.3 * (n + 1) * x + seed)
    return out
