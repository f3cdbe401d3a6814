import numpy as np
from plain_orch import Nudging
from setup_grid import smooth


def run(calls):
    shape = (9, 8, 4)
    nudge = Nudging(shape, weight=0.3, n_sub=3, settings={"with_source": True, "source_scale": 0.5})
    q = smooth(shape)
    source = 0.1 * smooth(shape, 2.0)
    for n in range(calls):
        nudge(q, source, dt=0.5 + n)
    return {"q": q}, {"log": nudge.log}
