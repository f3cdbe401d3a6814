from ndsl import X_DIM, Y_DIM, Z_DIM
from setup_grid import factories, smooth
from state_component import Condensation, TracerState


def run(calls):
    sf, qf = factories()
    dims = [X_DIM, Y_DIM, Z_DIM]
    state = TracerState(qf.zeros(dims, "kg/kg"), qf.zeros(dims, "kg/kg"), qf.zeros(dims, "K"))
    state.qvapor.data[...] = 0.25 * smooth(state.qvapor.data.shape)
    state.pt.data[...] = 280.0
    cond = Condensation(sf, latent=2.5)
    for n in range(calls):
        cond(state, rate=0.1 * (n + 1), n_steps=n + 2)
    return {"qvapor": state.qvapor.data, "qliquid": state.qliquid.data, "pt": state.pt.data}, {}
