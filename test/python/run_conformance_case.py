"""Runs one conformance case through the orch Python package, as a user's script would:
import orch, import the case module, call its entry with keyword arguments, compare.

usage: run_conformance_case.py CASE_DIR   (ORCH_MODE selects the mode; prints one JSON line)
"""
import importlib.util
import json
import pathlib
import sys
import time

import numpy as np

import orch  # first: stand-ins for GT4Py/NDSL when they are not installed

case = pathlib.Path(sys.argv[1]).resolve()
spec = json.loads((case / "case.json").read_text())
sys.path.insert(0, str(case))
module_spec = importlib.util.spec_from_file_location(f"case_{case.name}", case / "module.py")
module = importlib.util.module_from_spec(module_spec)
module_spec.loader.exec_module(module)
entry = getattr(module, spec["entry"])

fields = {p.stem: np.load(p) for p in sorted((case / "in").glob("*.npy"))}
kwargs = dict(fields)
kwargs.update(spec.get("scalars") or {})
kwargs.update(spec.get("compiletime") or {})
t0 = time.perf_counter()
entry(**kwargs)
first = time.perf_counter() - t0

rtol, atol = float(spec.get("rtol", 1e-12)), float(spec.get("atol", 1e-14))
problems = []
for name in spec["compare"]:
    want = np.load(case / "out" / f"{name}.npy")
    got = fields[name]
    if want.dtype == bool or np.issubdtype(want.dtype, np.integer):
        ok = np.array_equal(got, want)
    else:
        ok = bool(np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True).all())
    if not ok:
        problems.append(f"{name}: max abs err {float(np.nanmax(np.abs(got.astype(float) - want.astype(float)))):.3g}")
print(json.dumps({"case": case.name, "mode": orch.mode(), "ok": not problems, "problems": problems, "first_call_s": first}))
sys.exit(0 if not problems else 1)
