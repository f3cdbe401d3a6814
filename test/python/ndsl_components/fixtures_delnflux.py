from delnflux import DelnFlux
from ndsl import X_DIM, Y_DIM, Z_DIM
from setup_grid import factories, smooth


def run(calls):
    sf, qf = factories()
    flux = DelnFlux(sf, qf, nord=1, damp_c=0.05)
    q = qf.zeros([X_DIM, Y_DIM, Z_DIM], "kg/kg")
    q.data[...] = smooth(q.data.shape)
    fx = qf.zeros([X_DIM, Y_DIM, Z_DIM], "")
    fy = qf.zeros([X_DIM, Y_DIM, Z_DIM], "")
    for n in range(calls):
        flux(q, fx, fy)
        q.data[...] += 0.1  # the driver changes the input between calls
    return {"q": q.data, "fx": fx.data, "fy": fy.data, "d2": flux.delnflux_nosg._d2.data, "d2_half": flux.d2_half.data}, {}
