"""How `@program` calls run: ORCH_MODE (or `orch.set_mode`).

- ``python`` (default): the program runs as plain Python; stencils run on GT4Py when it is
  installed, else through orch's reference interpreter.
- ``build``: each program call builds its library if needed, then returns without running.
- ``build-and-run``: each program call builds on a cache miss, then runs the library.
- ``run``: each program call loads the library from the cache; a missing or stale entry
  is an error (`CacheMissError`) that names the entry and why.
"""
import os

MODES = ("python", "build", "build-and-run", "run")

_mode = None


def mode():
    """The current mode (ORCH_MODE, read once, unless set with `set_mode`)."""
    global _mode
    if _mode is None:
        _mode = _check(os.environ.get("ORCH_MODE", "python") or "python", "ORCH_MODE")
    return _mode


def set_mode(value):
    """Overrides ORCH_MODE for this process."""
    global _mode
    _mode = _check(value, "mode")


def compiled():
    return mode() != "python"


def _check(value, what):
    if value not in MODES:
        raise ValueError(f"{what}={value!r} is not a mode orch knows; use one of {', '.join(MODES)}")
    return value
