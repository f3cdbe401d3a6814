"""Runs the program class fixtures/programs/smoother.py:Smoother from Python in the current
ORCH_MODE (constructor arguments are its compile-time values) and saves q to OUT.npy.

usage: run_smoother.py OUT.npy
"""
import sys
from pathlib import Path

import numpy as np

import orch  # noqa: F401 - first: stand-ins for GT4Py/NDSL when they are not installed

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures" / "programs"))
import smoother  # noqa: E402

n = np.arange(7 * 6 * 3, dtype=np.float64)
q = (np.sin(0.37 * n) + 0.01 * n).reshape(7, 6, 3)
edge = np.cos(0.11 * n).reshape(7, 6, 3)
run = smoother.Smoother(7, 6, 3, n_iter=4, gain=0.25)
run(q, edge, 0.05)
run(q, edge, w=0.02)
np.save(sys.argv[1], q)
