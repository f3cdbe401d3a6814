"""One bad component (BAD_CASE=list|opaque|method), called once; the error is the result."""
import os

import bad_components
from ndsl import X_DIM, Y_DIM, Z_DIM
from setup_grid import factories


def run(calls):
    sf, qf = factories()
    u = qf.ones([X_DIM, Y_DIM, Z_DIM], "")
    v = qf.ones([X_DIM, Y_DIM, Z_DIM], "")
    case = os.environ["BAD_CASE"]
    if case == "list":
        bad_components.RuntimeList(sf)(u, v)
    elif case == "opaque":
        bad_components.OpaqueAttribute(sf)(u, 1.0)
    else:
        bad_components.PlainMethod(sf)(u)
    return None, {"ran": True}
