"""Compares the arrays of two drive.py runs: exit 0 when every array of REFERENCE.npz is in
OTHER.npz and equal within rtol 1e-12; prints the largest difference per array as JSON.

usage: compare.py REFERENCE.npz OTHER.npz
"""
import json
import sys

import numpy as np

a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
report, ok = {}, True
for name in a.files:
    if name not in b.files:
        report[name] = "missing"
        ok = False
        continue
    report[name] = float(np.abs(a[name] - b[name]).max())
    ok = ok and bool(np.allclose(a[name], b[name], rtol=1e-12, atol=1e-14))
print(json.dumps({"same": ok, "max_abs_diff": report}))
sys.exit(0 if ok else 1)
