"""Stand-ins for GT4Py's `gtscript` and NDSL's `ndsl.dsl.typing`, installed only when those
packages are not importable, so that a program file imports (and compiles through orch)
without them. They provide the names modules use at import time (annotations, decorators,
axis indices in externals); stencil bodies never run in Python.

Python mode then runs stencils on orch's reference interpreter instead of GT4Py."""
import importlib.util
import sys
import types

import numpy as np

_installed = None


def gt4py_installed():
    """Whether the real GT4Py is importable (checked once)."""
    global _installed
    if _installed is None:
        module = sys.modules.get("gt4py")
        if module is not None:
            _installed = not getattr(module, "__orch_stand_in__", False)
        else:
            _installed = importlib.util.find_spec("gt4py") is not None
    return _installed


class AxisIndex:
    """`gtscript.I[0] + 1`: an index relative to the start (0) or end (-1) of an axis."""

    def __init__(self, axis, index, offset=0):
        self.axis, self.index, self.offset = axis, index, offset

    def __add__(self, n):
        return AxisIndex(self.axis, self.index, self.offset + int(n))

    __radd__ = __add__

    def __sub__(self, n):
        return AxisIndex(self.axis, self.index, self.offset - int(n))

    def __repr__(self):
        sign = "+" if self.offset >= 0 else "-"
        return f"{self.axis}[{self.index}] {sign} {abs(self.offset)}"


class Axis:
    def __init__(self, name):
        self.name = name

    def __getitem__(self, index):
        return AxisIndex(self.name, index)

    def __repr__(self):
        return self.name


class FieldType:
    """`Field[IJK, np.float64]`, `Field[(np.float64, (3,))]`, `GlobalTable[(np.float64, (4,))]`:
    an annotation orch reads from the source (data_dims: GT4Py's data dimensions)."""

    def __init__(self, axes, dtype, data_dims=()):
        self.axes, self.dtype, self.data_dims = axes, np.dtype(dtype), tuple(data_dims)

    def __repr__(self):
        dims = f", {self.data_dims}" if self.data_dims else ""
        return f"Field[{self.axes}, {self.dtype}{dims}]"


def _is_axes(spec):
    if isinstance(spec, (tuple, list)):
        return len(spec) > 0 and all(isinstance(a, Axis) for a in spec)
    return isinstance(spec, Axis) or spec in ("IJK", "IJ", "IK", "JK", "I", "J", "K")


def _dtype_and_dims(spec):
    """`dtype` or `(dtype, (n, ...))` / `(dtype, n)`: the dtype and its data dimensions."""
    if isinstance(spec, tuple) and len(spec) == 2:
        dims = spec[1] if isinstance(spec[1], (tuple, list)) else (spec[1],)
        return spec[0], tuple(int(n) for n in dims)
    return spec, ()


class _FieldFactory:
    def __getitem__(self, spec):
        items = spec if isinstance(spec, tuple) else (spec,)
        if len(items) == 2 and not _is_axes(items[0]):
            # Field[(dtype, (n, ...))]: data dimensions over IJK
            return FieldType("IJK", *_dtype_and_dims(items))
        axes = items[0] if len(items) > 1 else "IJK"
        if isinstance(axes, (tuple, list)):
            axes = "".join(str(a) for a in axes)
        return FieldType(str(axes), *_dtype_and_dims(items[-1]))


class _GlobalTableFactory:
    def __getitem__(self, spec):
        return FieldType("", *_dtype_and_dims(spec))


class _Region:
    def __getitem__(self, index):
        return ("region", index)


class _Marker:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


def _only_in_stencils(name):
    def fn(*args, **kwargs):
        raise RuntimeError(f"gtscript.{name} is only meaningful inside a stencil definition")

    fn.__name__ = name
    return fn


def _function(fn=None, **kwargs):
    return fn if fn is not None else (lambda f: f)


def _gtscript_module(name):
    from .stencil import Stencil

    m = types.ModuleType(name)
    m.__orch_stand_in__ = True
    for order in ("PARALLEL", "FORWARD", "BACKWARD"):
        setattr(m, order, _Marker(order))
    for fn in ("computation", "interval", "horizontal", "compile_assert", "abs", "min", "max", "mod", "sqrt", "exp", "log",
               "log10", "pow", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh",
               "arcsinh", "arccosh", "arctanh", "floor", "ceil", "trunc", "isnan", "isinf", "isfinite", "erf", "erfc",
               "gamma", "cbrt"):
        setattr(m, fn, _only_in_stencils(fn))
    m.__INLINED = lambda x: x
    m.THIS_K = _Marker("THIS_K")
    m.region = _Region()
    m.Field = _FieldFactory()
    m.GlobalTable = _GlobalTableFactory()
    m.Axis = Axis
    m.I, m.J, m.K = Axis("I"), Axis("J"), Axis("K")
    m.IJ, m.IK, m.JK, m.IJK = "IJ", "IK", "JK", "IJK"
    m.float64, m.float32, m.int32, m.int64 = np.float64, np.float32, np.int32, np.int64
    m.function = _function

    def stencil(backend=None, definition=None, *, externals=None, **kwargs):
        """`gtscript.stencil(backend, definition)` / `@gtscript.stencil(backend=...)`: an orch stencil."""
        if callable(backend) and definition is None:
            backend, definition = None, backend
        if definition is None:
            return lambda fn: Stencil(fn, externals=externals, backend=backend)
        return Stencil(definition, externals=externals, backend=backend)

    def lazy_stencil(backend=None, definition=None, *, externals=None, **kwargs):
        """`gtscript.lazy_stencil`: nothing is checked before the first call."""
        if callable(backend) and definition is None:
            backend, definition = None, backend
        if definition is None:
            return lambda fn: Stencil(fn, externals=externals, backend=backend, lazy=True)
        return Stencil(definition, externals=externals, backend=backend, lazy=True)

    m.stencil = stencil
    m.lazy_stencil = lazy_stencil
    return m


def _typing_module(gtscript):
    m = types.ModuleType("ndsl.dsl.typing")
    m.__orch_stand_in__ = True
    m.Float, m.Int, m.Bool = np.float64, np.int64, np.bool_
    for prefix, dtype in (("Float", np.float64), ("Int", np.int64), ("Bool", np.bool_)):
        for suffix, axes in (("", "IJK"), ("IJ", "IJ"), ("K", "K"), ("I", "I"), ("J", "J"), ("IK", "IK"), ("JK", "JK")):
            setattr(m, f"{prefix}Field{suffix}", gtscript.Field[getattr(gtscript, axes) if hasattr(gtscript, axes) else tuple(axes), dtype])
    return m


def _package(name, **children):
    m = types.ModuleType(name)
    m.__orch_stand_in__ = True
    m.__path__ = []
    for k, v in children.items():
        setattr(m, k, v)
    return m


def install():
    """Provides gt4py.cartesian.gtscript and ndsl.dsl.typing when they are not installed."""
    if not gt4py_installed() and "gt4py" not in sys.modules:
        from .definition_errors import exceptions_module

        gtscript = _gtscript_module("gt4py.cartesian.gtscript")
        exceptions = exceptions_module()
        frontend = _package("gt4py.cartesian.frontend", exceptions=exceptions)
        cartesian = _package("gt4py.cartesian", gtscript=gtscript, frontend=frontend)
        gt4py = _package("gt4py", cartesian=cartesian, gtscript=gtscript)
        sys.modules.update({"gt4py": gt4py, "gt4py.cartesian": cartesian, "gt4py.cartesian.gtscript": gtscript, "gt4py.gtscript": gtscript,
                            "gt4py.cartesian.frontend": frontend, "gt4py.cartesian.frontend.exceptions": exceptions})
    if "ndsl" not in sys.modules and importlib.util.find_spec("ndsl") is None:
        from gt4py.cartesian import gtscript

        typing = _typing_module(gtscript)
        dsl = _package("ndsl.dsl", typing=typing, gt4py=gtscript)
        ndsl = _package("ndsl", dsl=dsl)
        sys.modules.update({"ndsl": ndsl, "ndsl.dsl": dsl, "ndsl.dsl.typing": typing, "ndsl.dsl.gt4py": gtscript})
