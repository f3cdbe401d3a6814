"""Runs fixtures/programs/substeps.py:dyn_step from Python in the current ORCH_MODE (its
`report` callback records each substep) and saves every field to OUT.npz.

usage: run_substeps.py OUT.npz
"""
import json
import sys
from pathlib import Path

import numpy as np

import orch  # first: stand-ins for GT4Py/NDSL when they are not installed

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures" / "programs"))
import substeps  # noqa: E402

shape = (14, 12, 5)
i, j, k = np.meshgrid(*(np.arange(n, dtype=np.float64) for n in shape), indexing="ij")
q = 1.0 + np.sin(0.5 * i) * np.cos(0.3 * j) + 0.1 * k
u = 3.0 + np.cos(0.2 * i + 0.1 * k)
v = -2.0 + np.sin(0.25 * j)
total = np.zeros(shape[:2])
substeps.dyn_step(q, u, v, total, dt=300.0, dx=1000.0, umax=8.0, nu=1.0e-4)
np.savez(sys.argv[1], q=q, u=u, v=v, total=total)
print(json.dumps({"mode": orch.mode(), "calls": substeps.substep_log}))
