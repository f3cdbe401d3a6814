"""orch's command line (Node) as the Python package uses it: builds, cache lookups, and
stencil runs on orch's reference interpreter. One process per request; the package
caches what it gets back, so a program pays this once per process and specialization."""
import atexit
import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from .errors import BuildError, CacheMissError, OrchError

_REPO = Path(__file__).resolve().parents[2]


def command():
    """[node, orch.js]: ORCH_NODE / ORCH_CLI, else `node` on PATH and this checkout's dist/."""
    node = os.environ.get("ORCH_NODE") or shutil.which("node")
    if not node:
        raise OrchError("orch needs Node.js: put `node` on PATH or set ORCH_NODE to its path")
    cli = os.environ.get("ORCH_CLI") or str(_REPO / "dist" / "bin" / "orch.js")
    if not os.path.exists(cli):
        raise OrchError(f"orch's command line was not found at {cli}: build orch (npm ci && npm run build) or set ORCH_CLI")
    return [node, cli]


def define_text(value):
    """A compile-time value as `--define` reads it (Python spelling keeps floats floats)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    return repr(value)


def build_entry(file, entry, defines, *, build=True, layout_args=(), bad_entries=None, extra_args=()):
    """Builds (or, with build=False, only looks up) `file:entry`; returns its build report.
    `bad_entries`: entry key -> why its library failed to load (marked bad, so rebuilt);
    `extra_args`: more `orch build` options (an orchestrated component's --closure)."""
    args = ["build", f"{file}:{entry}", "--json", *extra_args]
    for key, reason in (bad_entries or {}).items():
        args += ["--bad-entry", f"{key}={reason}"]
    for name, value in defines.items():
        args += ["--define", f"{name}={define_text(value)}"]
    if not build:
        args.append("--no-build")
    args += list(layout_args)
    p = subprocess.run(command() + args, capture_output=True, text=True)
    try:
        report = json.loads(p.stdout)
    except ValueError:
        raise BuildError(f"orch build {file}:{entry} failed (exit {p.returncode}):\n{p.stderr.strip()}") from None
    entries = report.get("entries") or []
    found = entries[0] if entries else None
    if found and found.get("status") == "missing":
        module = found["module"] if os.path.abspath(found["module"]) == os.path.abspath(file) else file
        where = f" (code path {found['codepath']})" if found.get("codepath") else ""
        raise CacheMissError(
            f"no usable cache entry for {module}:{found['entry']}{where}: {found['reason']}; "
            "build it first (ORCH_MODE=build-and-run, or orch build)"
        )
    if not found or found.get("status") == "error" or p.returncode != 0:
        raise BuildError(f"orch could not build {file}:{entry}:\n{p.stderr.strip()}")
    return found


class _Interpreter:
    """One long-lived `orch serve` process: orch's reference interpreter for Python mode."""

    def __init__(self):
        self._process = None
        self._next = 0
        self._lock = threading.Lock()

    def run(self, request):
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._process = subprocess.Popen(command() + ["serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
                atexit.register(self.close)
            self._next += 1
            request = dict(request, id=self._next)
            self._process.stdin.write(json.dumps(request) + "\n")
            self._process.stdin.flush()
            line = self._process.stdout.readline()
        if not line:
            raise OrchError("orch's interpreter (orch serve) stopped unexpectedly; see its messages above")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise OrchError(f"orch could not run {request['target']}:\n{answer.get('error')}")

    def close(self):
        if self._process is not None and self._process.poll() is None:
            self._process.stdin.close()
            self._process.wait(timeout=10)
        self._process = None


_interpreter = _Interpreter()


def run_interpreted(file, entry, fields, scalars, origin, domain, externals=None):
    """One call of stencil `file:entry` on orch's interpreter; fields are updated in place.
    `externals`: those the stencil object was made with, tagged as in a closure."""
    import numpy as np

    with tempfile.TemporaryDirectory(prefix="orch-stencil-") as work:
        inputs = {}
        for name, value in fields.items():
            inputs[name] = os.path.join(work, f"{name}.npy")
            np.save(inputs[name], np.ascontiguousarray(value))
        request = {"target": f"{file}:{entry}", "in": inputs, "out": os.path.join(work, "out"), "scalars": scalars}
        if origin is not None:
            request["origin"] = {k: list(v) for k, v in origin.items()} if isinstance(origin, dict) else [int(x) for x in origin]
        if domain is not None:
            request["domain"] = [int(x) for x in domain]
        if externals:
            request["externals"] = externals
        _interpreter.run(request)
        for name, value in fields.items():
            value[...] = np.load(os.path.join(work, "out", f"{name}.npy"))
