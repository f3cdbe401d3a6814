"""@stencil: a gtscript stencil, run on GT4Py (Python mode), orch's interpreter (Python
mode without GT4Py) or as its own compiled library (compiled modes, called directly)."""
import functools
import inspect
import json
import os

import numpy as np

from . import arguments, backends, interpreter, layout, modes
from .library import build_and_open
from .source import source_file


class Stencil:
    """What `@stencil` returns. Inside a program orch compiles the call; called from
    Python it runs like a GT4Py stencil object: `s(fields..., scalars..., origin=, domain=)`."""

    def __init__(self, definition, externals=None, backend=None, **gt4py_options):
        functools.update_wrapper(self, definition)
        self.definition = definition
        self.externals = dict(externals or {})
        self.backend = backend
        self.preset = backends.preset_for(backend)
        self.gt4py_options = gt4py_options
        self._params = list(inspect.signature(definition).parameters)
        self._gt4py = None
        self._compiled = {}

    def __call__(self, *args, origin=None, domain=None, validate_args=None, exec_info=None, **kwargs):
        values = self._arguments(args, kwargs)
        arguments.check(self.__name__, self.definition, values)
        arguments.check_domain(self.__name__, self.definition, values, lambda name, axes: _field_origin(origin, name, axes), domain)
        if modes.mode() == "python" or self.preset == backends.PYTHON:
            from .gt4py_stand_in import gt4py_installed

            if gt4py_installed():
                extra = {k: v for k, v in (("validate_args", validate_args), ("exec_info", exec_info)) if v is not None}
                return self._gt4py_stencil()(**values, origin=origin, domain=domain, **extra)
            fields = {k: v for k, v in values.items() if isinstance(v, np.ndarray)}
            scalars = {k: _plain(v) for k, v in values.items() if not isinstance(v, np.ndarray)}
            return interpreter.run(source_file(self.definition), self.definition.__name__, fields, scalars, origin, domain, self._tagged_externals())
        return self._run_compiled(values, origin, domain)

    def _arguments(self, args, kwargs):
        if len(args) > len(self._params):
            raise TypeError(f"{self.__name__}() takes {len(self._params)} arguments, got {len(args)}")
        values = dict(zip(self._params, args))
        for k, v in kwargs.items():
            if k not in self._params:
                raise TypeError(f"{self.__name__}() has no parameter {k!r}")
            values[k] = v
        missing = [p for p in self._params if p not in values]
        if missing:
            raise TypeError(f"{self.__name__}() is missing argument {missing[0]!r}")
        return values

    def _tagged_externals(self):
        """The externals this object was made with, for orch's interpreter (the decorator's are also in the source)."""
        if not self.externals:
            return None
        from .ndsl.closure import external_value

        return {name: external_value(v) for name, v in self.externals.items()}

    def _gt4py_stencil(self):
        if self._gt4py is None:
            from gt4py.cartesian import gtscript

            backend = self.backend or os.environ.get("ORCH_GT4PY_BACKEND", "numpy")
            self._gt4py = gtscript.stencil(backend=backend, definition=self.definition, externals=self.externals or None, **self.gt4py_options)
        return self._gt4py

    def _run_compiled(self, values, origin, domain):
        key = layout.current_key()
        bound = self._compiled.get(key)
        if bound is None:
            # the externals this object was made with are part of what is built (and of its key)
            tagged = self._tagged_externals()
            extra = ["--externals", json.dumps(tagged)] if tagged else []
            report, program = build_and_open(source_file(self.definition), self.definition.__name__, {}, lambda _: {}, build=modes.mode() != "run", layout_args=layout.cli_args(), extra_args=extra, preset=self.preset)
            bound = (report["interface"]["stencil"], program)
            self._compiled[key] = bound
        if modes.mode() == "build":
            return None
        spec, program = bound
        fields = {f["name"]: f["axes"] for f in spec["fields"]}
        upper = {f["name"]: f.get("upper") or [0] * len(f["axes"]) for f in spec["fields"]}
        origins = {name: _field_origin(origin, name, axes) for name, axes in fields.items()}
        if domain is None:
            # GT4Py's default: what every field holds from its origin, less how far past the
            # domain's end the stencil touches it
            domain = []
            for axis in range(3):
                extents = [values[n].shape[axes.index("IJK"[axis])] - origins[n][axes.index("IJK"[axis])] - upper[n][axes.index("IJK"[axis])] for n, axes in fields.items() if "IJK"[axis] in axes]
                domain.append(min(extents) if extents else 1)
        args = dict(values)
        for name, value in zip(spec["domainParams"], domain):
            args[name] = int(value)
        for name, params in spec["originParams"].items():
            for param, value in zip(params, origins[name]):
                args[param] = int(value)
        program(**args)


def _field_origin(origin, name, axes):
    """GT4Py's origin for one field: a tuple for all fields, or a dict per field (`_all_` for the rest)."""
    if isinstance(origin, dict):
        own = origin.get(name)
        if own is not None:
            return tuple(own)
        origin = origin.get("_all_")
    full = tuple(origin) if origin is not None else (0, 0, 0)
    if len(full) == len(axes) and len(axes) != 3:
        return full
    return tuple(full["IJK".index(a)] if "IJK".index(a) < len(full) else 0 for a in axes)


def _plain(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return float(value)


def stencil(definition=None, *, externals=None, backend=None, **gt4py_options):
    """`@stencil`, `@stencil(externals={...})`: a gtscript stencil orch compiles."""
    if definition is None:
        return lambda fn: Stencil(fn, externals=externals, backend=backend, **gt4py_options)
    return Stencil(definition, externals=externals, backend=backend, **gt4py_options)
