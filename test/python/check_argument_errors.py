"""Calls a stencil with arguments its annotations rule out, in the current ORCH_MODE, and
prints each exception as `case: Class: message`. Python mode and compiled mode must print
the same lines (the test compares them with one expected text).

usage: check_argument_errors.py MODULE_DIR
"""
import sys

import numpy as np

import orch  # noqa: F401 - first: stand-ins for GT4Py/NDSL when they are not installed

sys.path.insert(0, sys.argv[1])
import scaled  # noqa: E402

q = np.ones((4, 4, 3))
cases = {
    "array as scalar": lambda: scaled.scale(q, q),
    "scalar as field": lambda: scaled.scale(2.0, 3.0),
    "list as field": lambda: scaled.scale([1.0, 2.0], 2.0),
    "wrong dtype": lambda: scaled.scale(q.astype(np.float32), 2.0),
    "domain too big": lambda: scaled.scale(q, 2.0, origin=(1, 0, 0), domain=(4, 4, 3)),
}
for case, call in cases.items():
    try:
        call()
        print(f"{case}: no error")
    except Exception as e:  # noqa: BLE001 - printing what the user would see is the point
        print(f"{case}: {type(e).__name__}: {e}")
