from d_sw import DGridShallowWater, GridData, GridType
from ndsl import X_DIM, Y_DIM, Z_DIM
from setup_grid import factories, smooth


def run(calls):
    sf, qf = factories()
    grid = GridData(qf, dx=2.0, dy=2.5)
    namelist = {"damp_w": 0.05, "nord": 2, "d_con": 0.2}
    dsw = DGridShallowWater(sf, qf, grid, namelist, GridType.CUBED, do_heat=True)
    dims = [X_DIM, Y_DIM, Z_DIM]
    u, v, delp, heat = (qf.zeros(dims, "") for _ in range(4))
    u.data[...] = smooth(u.data.shape)
    v.data[...] = smooth(v.data.shape, 0.5)
    delp.data[...] = 100.0
    for n in range(calls):
        dsw(u, v, delp, heat, dt=0.05)
    return {"u": u.data, "v": v.data, "delp": delp.data, "heat": heat.data, "vort": dsw._vort.data, "div": dsw._div.data}, {"halo_updates": dsw._halo.calls}
