"""GT4Py backend names and the orch preset each means, so `backend=` is never ignored:
`numpy` and `debug` run the stencil in Python mode, the CPU backends build with the `cpu` preset,
the GPU backends with `cuda`. Any other name is an error."""
import difflib

from .errors import OrchError

PYTHON = "python"

# Exact GT4Py/NDSL names; `gt:cpu_*` covers gt:cpu_ifirst and gt:cpu_kfirst.
_PRESETS = {
    "numpy": PYTHON,
    # GT4Py's debug backend runs generated Python point by point: Python mode here too
    "debug": PYTHON,
    "gt:cpu_ifirst": "cpu",
    "gt:cpu_kfirst": "cpu",
    "dace:cpu": "cpu",
    "gt:gpu": "cuda",
    "dace:gpu": "cuda",
    "cuda": "cuda",
}


class UnknownBackendError(OrchError, ValueError):
    """A `backend=` name that orch maps to no preset."""


def preset_for(backend):
    """The preset a backend name means (PYTHON for numpy), or None when none was given."""
    if backend is None:
        return None
    if isinstance(backend, str) and backend.startswith("gt:cpu_"):
        return "cpu"
    preset = _PRESETS.get(backend) if isinstance(backend, str) else None
    if preset is None:
        close = difflib.get_close_matches(str(backend), list(_PRESETS), n=1)
        guess = f"did you mean {close[0]!r}? " if close else ""
        raise UnknownBackendError(
            f"unknown backend {backend!r}: {guess}orch knows numpy and debug (Python mode), gt:cpu_ifirst, gt:cpu_kfirst, "
            "dace:cpu (the cpu preset), gt:gpu, dace:gpu and cuda (the cuda preset)"
        )
    return preset
