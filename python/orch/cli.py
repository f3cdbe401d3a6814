"""orch's command line (Node) as the Python package uses it: builds, cache lookups, and
stencil runs on orch's reference interpreter. One process per request; the package
caches what it gets back, so a program pays this once per process and specialization."""
import json
import os
import shutil
import subprocess
import tempfile
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


def build_entry(file, entry, defines, *, build=True, layout_args=()):
    """Builds (or, with build=False, only looks up) `file:entry`; returns its build report."""
    args = ["build", f"{file}:{entry}", "--json"]
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
        raise CacheMissError(
            f"no usable cache entry for {found['module']}:{found['entry']}: {found['reason']}; "
            "build it first (ORCH_MODE=build-and-run, or orch build)"
        )
    if not found or found.get("status") == "error" or p.returncode != 0:
        raise BuildError(f"orch could not build {file}:{entry}:\n{p.stderr.strip()}")
    return found


def run_interpreted(file, entry, fields, scalars, origin, domain):
    """One call of stencil `file:entry` on orch's interpreter; fields are updated in place."""
    import numpy as np

    with tempfile.TemporaryDirectory(prefix="orch-stencil-") as work:
        args = ["run", f"{file}:{entry}", "--mode", "python", "--json", "--out", os.path.join(work, "out")]
        for name, value in fields.items():
            path = os.path.join(work, f"{name}.npy")
            np.save(path, np.ascontiguousarray(value))
            args += ["--in", f"{name}={path}"]
        if scalars:
            args += ["--scalars", json.dumps(scalars)]
        if origin is not None:
            args += ["--origin", json.dumps(origin) if isinstance(origin, dict) else ",".join(str(int(x)) for x in origin)]
        if domain is not None:
            args += ["--domain", ",".join(str(int(x)) for x in domain)]
        p = subprocess.run(command() + args, capture_output=True, text=True)
        if p.returncode != 0:
            raise OrchError(f"orch could not run stencil {file}:{entry}:\n{p.stderr.strip()}")
        for name, value in fields.items():
            value[...] = np.load(os.path.join(work, "out", f"{name}.npy"))
