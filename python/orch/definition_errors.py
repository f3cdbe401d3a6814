"""The exception a stencil definition orch refuses raises (at the decorator in Python mode):
`DefinitionError`, also an instance of the class GT4Py raises for the same refusal, so code
written against GT4Py (`except GTScriptSyntaxError`, `pytest.raises(ValueError)`) catches it.

GT4Py's classes come from `gt4py.cartesian.frontend.exceptions` as the stand-in in use defines
them (orch's own, `EXCEPTIONS_MODULE` below, when GT4Py is not installed)."""
import importlib
import sys
import types

from .errors import DefinitionError, DefinitionTypeError

EXCEPTIONS = "gt4py.cartesian.frontend.exceptions"

#: diagnostic code -> the GT4Py class raised for it at 99b79b58 (others: GTScriptSyntaxError)
_GT4PY_CLASS = {
    "E_UNKNOWN_NAME": "GTScriptSymbolError",
    "E_EXTERNAL_MISSING": "GTScriptDefinitionError",
    "E_UNKNOWN_ATTRIBUTE": "GTScriptDefinitionError",
    "E_NOT_A_VALUE": "GTScriptDefinitionError",
    "E_EXTERNALS_FORM": "GTScriptDefinitionError",
    "E_COMPILE_ASSERT": "GTScriptAssertionError",
}

#: refused by GT4Py's GTIR validators (plain ValueError) or its external resolution (TypeError)
_NO_GT4PY_CLASS = {"E_WRITE_READ_OFFSET", "E_SELF_ASSIGN_OFFSET", "E_PARALLEL_K_OFFSET", "E_NOT_GTSCRIPT_FUNCTION"}
_TYPE_ERROR_CODES = {"E_NOT_GTSCRIPT_FUNCTION"}

_classes = {}


def definition_error(message, codes, type_error=False):
    """A DefinitionError for diagnostics with `codes`, of GT4Py's class for the first of them
    (`type_error`: also a TypeError, as orch has raised it)."""
    base = DefinitionTypeError if type_error or (codes and set(codes) <= _TYPE_ERROR_CODES) else DefinitionError
    first = codes[0] if codes else None
    gt4py_class = None
    if first not in _NO_GT4PY_CLASS:
        gt4py_class = getattr(_gt4py_exceptions(), _GT4PY_CLASS.get(first, "GTScriptSyntaxError"), None)
    if not isinstance(gt4py_class, type) or not issubclass(gt4py_class, Exception):
        return base(message)
    key = (base, gt4py_class)
    if key not in _classes:
        _classes[key] = type(base.__name__, (base, gt4py_class), {"__module__": base.__module__})
    return _classes[key](message)


def _gt4py_exceptions():
    module = sys.modules.get(EXCEPTIONS)
    if module is None and getattr(sys.modules.get("gt4py"), "__orch_stand_in__", False):
        try:
            module = importlib.import_module(EXCEPTIONS)
        except ImportError:
            module = None
    return module


def exceptions_module():
    """orch's stand-in for `gt4py.cartesian.frontend.exceptions`: GT4Py's classes and hierarchy."""
    m = types.ModuleType(EXCEPTIONS)
    m.__orch_stand_in__ = True

    class GTScriptSyntaxError(Exception):
        pass

    class GTScriptSymbolError(GTScriptSyntaxError):
        pass

    class GTScriptDefinitionError(GTScriptSyntaxError):
        pass

    class GTScriptValueError(GTScriptDefinitionError):
        pass

    class GTScriptDataTypeError(GTScriptSyntaxError):
        pass

    class GTScriptAssertionError(Exception):
        pass

    for cls in (GTScriptSyntaxError, GTScriptSymbolError, GTScriptDefinitionError, GTScriptValueError, GTScriptDataTypeError, GTScriptAssertionError):
        cls.__module__ = EXCEPTIONS
        setattr(m, cls.__name__, cls)
    return m
