"""Orchestrated vs stencil-by-stencil from Python, the alternative NDSL users have: the
program's Python function run as Python, each stencil call its own compiled library
called through the orch package (as NDSL's non-orchestrated path does), against the
whole program as one library. Both outputs must agree. Prints one JSON line.

usage: ORCH_MODE=build-and-run python3 python_stencil_by_stencil.py FILE ENTRY NI NJ NK SCALARS_JSON [MIN_SECONDS]"""

import importlib.util
import inspect
import json
import statistics
import sys
import time

import numpy as np

import orch  # noqa: F401 - provides gtscript and ndsl stand-ins where GT4Py is absent


def main() -> None:
    file, entry = sys.argv[1], sys.argv[2]
    shape = tuple(int(a) for a in sys.argv[3:6])
    scalars = json.loads(sys.argv[6])
    min_seconds = float(sys.argv[7]) if len(sys.argv) > 7 else 0.3
    spec = importlib.util.spec_from_file_location("bench_fixture", file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    program = getattr(module, entry)
    fn = program.__wrapped__
    rng = np.random.default_rng(0)

    def inputs():
        out = []
        for p in inspect.signature(fn).parameters.values():
            if p.name in scalars:
                out.append(scalars[p.name])
            elif p.default is inspect.Parameter.empty:
                out.append(rng.uniform(0.5, 1.5, shape))
        return out

    args = inputs()
    ways = {"orchestrated": (program, [a.copy() if isinstance(a, np.ndarray) else a for a in args]),
            "stencil_by_stencil": (fn, [a.copy() if isinstance(a, np.ndarray) else a for a in args])}
    for call, a in ways.values():
        call(*a)
    for x, y in zip(ways["orchestrated"][1], ways["stencil_by_stencil"][1]):
        if isinstance(x, np.ndarray) and not np.allclose(x, y, rtol=1e-12, atol=1e-12):
            raise SystemExit("orchestrated and stencil-by-stencil results differ")
    # Calls alternate one of each way, so a change of load hits both; each call is timed
    # on its own and the medians compared. The ratio is also given from the 10th
    # percentiles, the calls least disturbed on a loaded machine. A warm-up first lets the
    # thread pool and the caches settle.
    for call, a in ways.values():
        for _ in range(50):
            call(*a)
    per_call = {name: [] for name in ways}
    start = time.perf_counter()
    while time.perf_counter() - start < 2 * min_seconds or len(per_call["orchestrated"]) < 200:
        for name, (call, a) in ways.items():
            t = time.perf_counter()
            call(*a)
            per_call[name].append(time.perf_counter() - t)
    out = {"shape": shape, "calls": len(per_call["orchestrated"])}
    for name, times in per_call.items():
        out[f"{name}_median_s"] = statistics.median(times)
        out[f"{name}_p10_s"] = statistics.quantiles(times, n=10)[0]
    out["ratio"] = out["stencil_by_stencil_median_s"] / out["orchestrated_median_s"]
    out["ratio_p10"] = out["stencil_by_stencil_p10_s"] / out["orchestrated_p10_s"]
    print(json.dumps(out))


main()
