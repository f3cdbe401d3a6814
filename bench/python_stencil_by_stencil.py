"""Orchestrated vs stencil-by-stencil from Python, the alternative NDSL users have: the
program's Python function run as Python, each stencil call its own compiled library
called through the orch package (as NDSL's non-orchestrated path does), against the
whole program as one library. Both outputs must agree. Prints one JSON line.

usage: ORCH_MODE=build-and-run python3 python_stencil_by_stencil.py FILE ENTRY NI NJ NK SCALARS_JSON [MIN_SECONDS]"""

import importlib.util
import inspect
import json
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
    out = {"shape": shape}
    for name, (call, a) in ways.items():
        times = []
        while sum(times) < min_seconds or len(times) < 5:
            t = time.perf_counter()
            call(*a)
            times.append(time.perf_counter() - t)
        times.sort()
        out[f"{name}_median_s"] = times[len(times) // 2]
        out[f"{name}_runs"] = len(times)
    out["ratio"] = out["stencil_by_stencil_median_s"] / out["orchestrated_median_s"]
    print(json.dumps(out))


main()
