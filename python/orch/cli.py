"""orch's command line (Node) as the Python package uses it: builds and cache lookups, one
process per request; the package caches what it gets back, so a program pays this once per
process and specialization. (Python mode's interpreter is one long-lived process: interpreter.py.)"""
import json
import os
import shutil
import subprocess
from pathlib import Path

from .errors import BuildError, CacheMissError, OrchError

_REPO = Path(__file__).resolve().parents[2]


class Located:
    """How the package runs orch's command line: the argv prefix and where it came from."""

    def __init__(self, source, argv, detail):
        self.source = source
        self.argv = argv
        self.detail = detail


def _node():
    node = os.environ.get("ORCH_NODE") or shutil.which("node")
    if not node:
        raise OrchError("orch needs Node.js: put `node` on PATH or set ORCH_NODE to its path")
    return node


def _script_argv(path):
    """A .js file runs under node (ORCH_NODE); anything else is executed as it is."""
    return [_node(), path] if path.endswith((".js", ".mjs")) else [path]


def _npm_bin():
    """The `orch` that npm installed: node_modules/.bin from the working folder up, then PATH."""
    folder = Path.cwd().resolve()
    for d in [folder, *folder.parents]:
        candidate = d / "node_modules" / ".bin" / "orch"
        if candidate.is_file():
            return str(candidate)
    return shutil.which("orch")


_located = None


def locate():
    """Finds orch's command line, first that exists of: the entry point npm installed
    (node_modules/.bin/orch, or `orch` on PATH), $ORCH_CLI, the checkout this package is
    imported from (python/ beside dist/), then `npx --no -- orch` (a global or parent install)."""
    global _located
    if _located is not None:
        return _located
    tried = []
    found = _npm_bin()
    if found:
        _located = Located("entry point", _script_argv(found), found)
        return _located
    tried.append("no node_modules/.bin/orch from the working folder up, no `orch` on PATH")
    env = os.environ.get("ORCH_CLI")
    if env:
        if not os.path.exists(env):
            raise OrchError(f"ORCH_CLI names {env}, which does not exist: point it at orch's dist/bin/orch.js, or unset it")
        _located = Located("ORCH_CLI", _script_argv(env), env)
        return _located
    tried.append("ORCH_CLI is not set")
    checkout = _REPO / "dist" / "bin" / "orch.js"
    if checkout.is_file():
        _located = Located("checkout", _script_argv(str(checkout)), str(checkout))
        return _located
    tried.append(f"no built checkout at {checkout}")
    npx = shutil.which("npx")
    if npx:
        # `--` keeps npx from reading orch's options (--version) as its own
        p = subprocess.run([npx, "--no", "--", "orch", "--version"], capture_output=True, text=True)
        if p.returncode == 0:
            _located = Located("npx", [npx, "--no", "--", "orch"], "npx --no -- orch")
            return _located
        tried.append("`npx --no -- orch` found none")
    else:
        tried.append("no `npx` on PATH")
    raise OrchError(
        "orch's command line was not found (" + "; ".join(tried) + "): install it into your project "
        "(npm install --save-dev <orch folder or tarball>, then run Python from that project), "
        "or set ORCH_CLI to its dist/bin/orch.js"
    )


def command():
    """The argv prefix that runs orch's command line (see locate())."""
    return list(locate().argv)


def define_text(value):
    """A compile-time value as `--define` reads it (Python spelling keeps floats floats)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    return repr(value)


def build_entry(file, entry, defines, *, build=True, layout_args=(), bad_entries=None, extra_args=(), preset=None):
    """Builds (or, with build=False, only looks up) `file:entry` (with `preset`, else the
    config's); returns its build report. `bad_entries`: entry key -> why its library failed
    to load (marked bad, so rebuilt); `extra_args`: more `orch build` options (an
    orchestrated component's --closure)."""
    args = ["build", f"{file}:{entry}", "--json", *extra_args]
    if preset is not None:
        args += ["--preset", preset]
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
