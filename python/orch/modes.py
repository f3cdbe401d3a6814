"""How `@program` calls run: ORCH_MODE (or `orch.set_mode`), else NDSL's FV3_DACEMODE.

- ``python`` (default): the program runs as plain Python; stencils run on GT4Py when it is
  installed, else through orch's reference interpreter.
- ``build``: each program call builds its library if needed, then returns without running.
- ``build-and-run``: each program call builds on a cache miss, then runs the library.
- ``run``: each program call loads the library from the cache; a missing or stale entry
  is an error (`CacheMissError`) that names the entry and why.

FV3_DACEMODE takes NDSL's names for the same modes (``Python``, ``Build``, ``BuildAndRun``,
``Run``); ORCH_MODE wins when both are set.
"""
import os

MODES = ("python", "build", "build-and-run", "run")

#: NDSL's orchestration modes (DaCeOrchestration names) -> orch's
FV3_DACEMODES = {"Python": "python", "Build": "build", "BuildAndRun": "build-and-run", "Run": "run"}

_mode = None


def mode():
    """The current mode (ORCH_MODE, read once, unless set with `set_mode`)."""
    global _mode
    if _mode is None:
        if os.environ.get("ORCH_MODE"):
            _mode = _check(os.environ["ORCH_MODE"], "ORCH_MODE")
        else:
            _mode = from_fv3_dacemode(os.environ.get("FV3_DACEMODE") or "Python")
    return _mode


def from_fv3_dacemode(value):
    """orch's mode for an FV3_DACEMODE value (NDSL's DaCeOrchestration names)."""
    if value not in FV3_DACEMODES:
        raise ValueError(f"FV3_DACEMODE={value!r} is not an orchestration mode; use one of {', '.join(FV3_DACEMODES)}")
    return FV3_DACEMODES[value]


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
