import numpy as np
from ndsl import X_DIM, Y_DIM, Z_DIM
from ray_fast import RayleighDamping
from setup_grid import factories, smooth


def run(calls):
    sf, qf = factories()
    ray = RayleighDamping(sf, qf, rf_cutoff=700.0, tau=3.0, n_sponge=4)
    u = qf.zeros([X_DIM, Y_DIM, Z_DIM], "m/s")
    u.data[...] = 10.0 * smooth(u.data.shape)
    v = qf.zeros([X_DIM, Y_DIM, Z_DIM], "m/s")
    v.data[...] = -5.0 * smooth(v.data.shape, 1.0)
    pfull = np.broadcast_to(np.linspace(100.0, 1000.0, u.data.shape[2]), u.data.shape).copy()
    for n in range(calls):
        ray(u, v, pfull, dt=150.0 + n, ptop=30.0)
    return {"u": u.data, "v": v.data, "energy": ray.energy.data}, {}
