"""orch's Python package: the decorators a program file uses, and the runtime that calls
the libraries orch builds.

    from orch import program, stencil, callback, compiletime, temporary, halo_update

ORCH_MODE selects how `@program` calls run (see `orch.modes`): ``python`` (default; plain
Python on GT4Py, or on orch's interpreter when GT4Py is not installed), ``build``,
``build-and-run`` or ``run`` (compiled: one native library per program, called through
its generated ctypes binding).

Importing orch installs stand-ins for GT4Py's gtscript and NDSL's typing when those are
not installed, so import orch before the program modules.
"""
from . import gt4py_stand_in as _stand_in
from .callback import callback
from .compiletime import CompileTime, compiletime
from .doctor import doctor
from .device import set_stream, set_synchronize, sync, synchronize
from .errors import BuildError, CacheMissError, DefinitionError, LayoutError, OrchError
from .halo import halo_update, halo_update_start, halo_update_wait
from .layout import rank, set_layout
from .modes import MODES, mode, set_mode
from .program import Program, program
from .stencil import Stencil, lazy_stencil, stencil
from .temporary import temporary

_stand_in.install()

__all__ = [
    "program", "stencil", "lazy_stencil", "callback", "compiletime", "temporary",
    "halo_update", "halo_update_start", "halo_update_wait",
    "mode", "set_mode", "MODES", "set_layout", "rank",
    "sync", "set_synchronize", "synchronize", "set_stream",
    "doctor",
    "OrchError", "BuildError", "CacheMissError", "LayoutError", "DefinitionError",
    "Program", "Stencil", "CompileTime",
]
