"""Exceptions of the orch package (numpy/ctypes argument errors are TypeError/ValueError)."""


class OrchError(Exception):
    """An error orch reported: the message carries its diagnostics (code, file:line, frame)."""


class BuildError(OrchError):
    """`orch build` failed for a program (a compile error in the user's code, a toolchain problem)."""


class CacheMissError(OrchError):
    """ORCH_MODE=run found no usable cache entry; the message says which and why."""


class LayoutError(OrchError):
    """A rank layout that orch cannot map to a code path, or inconsistent layout settings."""


class CallError(OrchError, ValueError):
    """A call whose arguments the stencil cannot take (shapes, origin, domain out of the arrays):
    a ValueError, as GT4Py raises for these."""


class DefinitionError(OrchError, ValueError):
    """A stencil definition orch refuses, as GT4Py refuses it when `@gtscript.stencil` runs
    (GT4Py's parallel-model checks raise ValueError; its syntax errors are caught by this too)."""


class DefinitionTypeError(DefinitionError, TypeError):
    """A definition GT4Py refuses with TypeError (a call of a function that is not a gtscript function)."""
