"""Drives one NDSL-shaped fixture as a model driver would: orch.ndsl.install() first, then
the model; FV3_DACEMODE (or ORCH_MODE) picks the mode. Saves every array to OUT.npz and
prints one JSON line.

usage: drive.py FIXTURE OUT.npz [--calls N]
"""
import importlib
import json
import sys
from pathlib import Path

import orch  # first: stand-ins for GT4Py when it is not installed
import orch.ndsl

orch.ndsl.install()

sys.path.insert(0, str(Path(__file__).resolve().parent))
fixture = importlib.import_module(f"fixtures_{sys.argv[1]}")
calls = int(sys.argv[sys.argv.index("--calls") + 1]) if "--calls" in sys.argv else 2
arrays, report = fixture.run(calls)
if arrays is not None:
    import numpy as np

    np.savez(sys.argv[2], **arrays)
print(json.dumps({"mode": orch.mode(), **report}))
