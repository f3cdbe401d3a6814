"""@stencil: a gtscript stencil, run on GT4Py (Python mode), orch's interpreter (Python
mode without GT4Py) or as its own compiled library (compiled modes, called directly)."""
import functools
import inspect
import json
import os
import time
import warnings

import numpy as np

from . import arguments, backends, call_binding, interpreter, layout, modes
from .definition_errors import definition_error
from .errors import CallError, OrchError
from .library import build_and_open
from .source import source_file


class Stencil:
    """What `@stencil` returns. Inside a program orch compiles the call; called from
    Python it runs like a GT4Py stencil object: `s(fields..., scalars..., origin=, domain=)`."""

    def __init__(self, definition, externals=None, backend=None, lazy=False, **gt4py_options):
        functools.update_wrapper(self, definition)
        self.definition = definition
        self.externals = dict(externals or {})
        self.backend = backend
        self.preset = backends.preset_for(backend)
        self.gt4py_options = gt4py_options
        self._params = list(inspect.signature(definition).parameters)
        self._gt4py = None
        self._compiled = {}
        self._described = None
        if not lazy:
            self._check_definition()

    def _check_definition(self):
        """GT4Py lowers a stencil when `@gtscript.stencil` runs, so a definition it refuses fails
        there, not at the first call; so does orch's interpreter in Python mode (it keeps the
        lowered stencil for the calls). Compiled modes build at the first call."""
        if modes.mode() != "python" and self.preset != backends.PYTHON:
            return
        from .gt4py_stand_in import gt4py_installed

        if not gt4py_installed():
            if self.gt4py_options.get("ignore_np_errstate") is False:
                # GT4Py's numpy backend then lets numpy warn (divide by zero ...); the interpreter computes IEEE results silently
                warnings.warn(
                    f"stencil '{self.__name__}': ignore_np_errstate=False has no effect on orch's interpreter, which does not "
                    "report floating-point errors (a division by zero gives inf or nan silently, as GT4Py's default does)",
                    UserWarning,
                    stacklevel=4,
                )
            try:
                tagged = self._tagged_externals()
            except TypeError as e:
                # GT4Py: GTScriptDefinitionError ("Missing or invalid value for external symbol")
                raise definition_error(str(e), ["E_EXTERNALS_FORM"], type_error=True) from None
            try:
                self._described = interpreter.describe(source_file(self.definition), self.definition.__name__, tagged, definition=True)
            except OrchError as e:
                # an external the call supplies later (a rank layout's region bounds) is no
                # definition error: the first call lowers with it, and reports it if still missing
                if {d.get("code") for d in getattr(e, "diagnostics", [])} != {"E_EXTERNAL_MISSING"}:
                    raise
                self._described = None

    def __call__(self, *args, origin=None, domain=None, validate_args=None, exec_info=None, **kwargs):
        if exec_info is not None:
            exec_info["call_start_time"] = time.perf_counter()
        values = call_binding.bind(self.__name__, self.definition, args, kwargs)
        # left-out fields and fields with __gt_dims__ are checked against the entry's interface below
        plain = {k: call_binding.array_of(v) for k, v in values.items() if v is not None and getattr(v, "__gt_dims__", None) is None}
        arguments.check(self.__name__, self.definition, plain)
        given_origin = call_binding.call_origin(origin, values)
        arguments.check_domain(self.__name__, self.definition, plain, lambda name, axes: _field_origin(given_origin, name, axes), domain)
        if modes.mode() == "python" or self.preset == backends.PYTHON:
            from .gt4py_stand_in import gt4py_installed

            if gt4py_installed():
                extra = {k: v for k, v in (("validate_args", validate_args), ("exec_info", exec_info)) if v is not None}
                return self._gt4py_stencil()(**values, origin=origin, domain=domain, **extra)
        origin = given_origin
        if modes.mode() == "python" or self.preset == backends.PYTHON:
            target = (source_file(self.definition), self.definition.__name__)
            if self._described is None:
                self._described = interpreter.describe(*target, self._tagged_externals(), definition=True)
            values = self._checked(values, self._described)
            fields = {k: v for k, v in values.items() if isinstance(v, np.ndarray)}
            scalars = {k: _plain(v) for k, v in values.items() if not isinstance(v, np.ndarray)}
            _timed(exec_info, "call_run", lambda: _timed(exec_info, "run", lambda: interpreter.run(*target, fields, scalars, origin, domain, self._tagged_externals())))
        else:
            _timed(exec_info, "call_run", lambda: self._run_compiled(values, origin, domain, exec_info))
        if exec_info is not None:
            exec_info["call_end_time"] = time.perf_counter()

    def _checked(self, values, iface):
        """`values` checked against the entry's interface as GT4Py checks a call; fields and
        scalars the stencil never touches may be left out (None), and are then dropped."""
        fields = {p["name"]: p for p in iface["params"] if p["kind"] == "field"}
        call_binding.left_out(values, fields, iface["stencil"])
        out = {k: v for k, v in values.items() if v is not None}
        for name, p in fields.items():
            if name in out:
                # any object with __array_interface__ is viewed in place, so writes land in the caller's memory
                out[name] = call_binding.field_view(name, out[name], p.get("axes") or "", p.get("dims") or [])
        return out

    def _tagged_externals(self):
        """The externals this object was made with, for orch's interpreter (the decorator's are also in the source)."""
        if not self.externals:
            return None
        from .ndsl.closure import external_value

        tagged = {}
        for name, v in self.externals.items():
            try:
                tagged[name] = external_value(v)
            except TypeError as e:
                # GT4Py's error names the external; so does orch's
                raise TypeError(f"external '{name}': {e} (pass a number, bool, string, tuple, Enum, Axis, types.SimpleNamespace or gtscript function)") from None
        return tagged

    def _gt4py_stencil(self):
        if self._gt4py is None:
            from gt4py.cartesian import gtscript

            backend = self.backend or os.environ.get("ORCH_GT4PY_BACKEND", "numpy")
            self._gt4py = gtscript.stencil(backend=backend, definition=self.definition, externals=self.externals or None, **self.gt4py_options)
        return self._gt4py

    def _run_compiled(self, values, origin, domain, exec_info=None):
        key = layout.current_key()
        bound = self._compiled.get(key)
        if bound is None:
            # the externals this object was made with are part of what is built (and of its key)
            tagged = self._tagged_externals()
            extra = ["--externals", json.dumps(tagged)] if tagged else []
            report, program = build_and_open(source_file(self.definition), self.definition.__name__, {}, lambda _: {}, build=modes.mode() != "run", layout_args=layout.cli_args(), extra_args=extra, preset=self.preset)
            bound = (report["interface"], program)
            self._compiled[key] = bound
        if modes.mode() == "build":
            return None
        iface, program = bound
        spec = iface["stencil"]
        values = self._checked(values, iface)
        for p in iface["params"]:
            if p["name"] not in values:
                # left out, never touched: a one-point stand-in of the declared type and rank
                values[p["name"]] = np.zeros((1,) * len(p.get("axes") or "") + tuple(p.get("dims") or []), dtype=p["dtype"]) if p["kind"] == "field" else 0
        fields = {f["name"]: f["axes"] for f in spec["fields"] if not f.get("untouched")}
        upper = {f["name"]: f.get("upper") or [0] * len(f["axes"]) for f in spec["fields"]}
        origins = {f["name"]: _field_origin(origin, f["name"], f["axes"]) if not f.get("untouched") else (0,) * len(f["axes"]) for f in spec["fields"]}
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
        try:
            _timed(exec_info, "run", lambda: _timed(exec_info, "run_cpp", lambda: program(**args)))
        except RuntimeError as e:
            # the library's check of the call's accesses against the arrays: GT4Py raises ValueError
            if "E_OUT_OF_BOUNDS" in str(e):
                raise CallError(str(e)) from None
            raise


def _timed(exec_info, key, run):
    """Runs `run`, recording GT4Py's `<key>_start_time` / `<key>_end_time` when exec_info is given."""
    if exec_info is not None:
        exec_info[key + "_start_time"] = time.perf_counter()
    result = run()
    if exec_info is not None:
        exec_info[key + "_end_time"] = time.perf_counter()
    return result


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
    """`@stencil`, `@stencil(externals={...})`: a gtscript stencil orch compiles. In Python
    mode a definition orch (like GT4Py) refuses raises here (`DefinitionError`)."""
    if definition is None:
        return lambda fn: Stencil(fn, externals=externals, backend=backend, **gt4py_options)
    return Stencil(definition, externals=externals, backend=backend, **gt4py_options)


def lazy_stencil(definition=None, *, externals=None, backend=None, **gt4py_options):
    """GT4Py's `lazy_stencil`: like `stencil`, but nothing is checked before the first call."""
    if definition is None:
        return lambda fn: Stencil(fn, externals=externals, backend=backend, lazy=True, **gt4py_options)
    return Stencil(definition, externals=externals, backend=backend, lazy=True, **gt4py_options)
