import os

import numpy as np
from ndsl import X_DIM, Y_DIM, Z_DIM
from ray_fast import RayleighDamping
from setup_grid import factories, smooth


def run(calls):
    sf, qf = factories()
    ray = RayleighDamping(sf, qf, rf_cutoff=float(os.environ.get("RAY_RF_CUTOFF", "700.0")), tau=3.0, n_sponge=int(os.environ.get("RAY_N_SPONGE", "4")))
    first = ray.energy
    u = qf.zeros([X_DIM, Y_DIM, Z_DIM], "m/s")
    u.data[...] = 10.0 * smooth(u.data.shape)
    v = qf.zeros([X_DIM, Y_DIM, Z_DIM], "m/s")
    v.data[...] = -5.0 * smooth(v.data.shape, 1.0)
    pfull = np.broadcast_to(np.linspace(100.0, 1000.0, u.data.shape[2]), u.data.shape).copy()
    for n in range(calls):
        if n == 1:
            # reallocated between calls (NDSL issue 436): the library must write the new array
            ray.energy = qf.zeros([X_DIM, Y_DIM], "J")
        ray(u, v, pfull, dt=150.0 + n, ptop=30.0)
    return {"u": u.data, "v": v.data, "energy": ray.energy.data, "first_energy": first.data}, {}
