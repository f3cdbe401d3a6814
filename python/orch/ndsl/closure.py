"""The resolved closure of an orchestrated method, described from the live object.

At the first compiled call, every `self.<attr>` chain the method reads (attributes, and
subscripts by a constant key: `self.grid.rarea`, `self._namelist["damp_w"]`) is evaluated
on the object and classified: a stencil, a nested orchestrated component or method, an
array, a configuration value, a runtime float, a callback, or a container to follow. The
description is JSON (plugins/parse/closure.ts reads it): orch's frontend lowers the method
from the user's file with those chains bound. Arrays and floats become program parameters;
`Access` says how each call reads them from the object and the arguments."""
import ast
import dataclasses
import enum
import inspect
import json
import re
import textwrap
import types

import numpy as np

from ..source import source_file
from .wrapped_halo_updater import HALO_CALLS, halo_exchange, is_wrapped_halo_updater

_DIMS_TO_AXES = {"x": "I", "x_interface": "I", "y": "J", "y_interface": "J", "z": "K", "z_interface": "K"}
#: NDSL's region externals: orch computes them per code path in a layout build
REGION_EXTERNALS = {"i_start", "i_end", "j_start", "j_end", "local_is", "local_ie", "local_js", "local_je", "k_start", "k_end"}


class Access:
    """How one call reads a program parameter: a Python expression over `_self` and the arguments."""

    def __init__(self):
        self.params = {}  # param name -> expression
        self.callbacks = {}  # closure path -> the bound function the host calls
        self._names = set()
        self._arrays = {}  # id(array) -> param: one array reachable twice is one parameter

    def fresh(self, hint):
        base = re.sub(r"\W+", "_", hint).strip("_") or "p"
        if base[0].isdigit():
            base = "p_" + base
        name, n = base, 1
        while name in self._names:
            n += 1
            name = f"{base}_{n}"
        self._names.add(name)
        return name


class Resolver:
    """Describes one orchestrated method of one object (nested components included)."""

    def __init__(self, compiletime_names=()):
        self.access = Access()
        self.compiletime = set(compiletime_names)
        self._described = {}  # id(component) -> (its node, its expression, its hint): a shared component is described once
        self._halo_updaters = []  # (record node, WrappedHaloUpdater): compiled or called back, decided once all arrays are known

    # ---- entry ----

    def describe(self, obj, method_name, arguments):
        """The closure of `obj.<method_name>` called with `arguments` (a name -> value dict)."""
        cls = _user_class(obj)
        func = _function_of(cls, method_name)
        args = {name: self._argument(name, value) for name, value in arguments.items()}
        root = self._component(obj, method_name, "_self", "self")
        root["method"] = method_name
        for node, updater in self._halo_updaters:
            node.update(halo_exchange(updater, self.access._arrays))
        return {"file": source_file(cls), "class": cls.__name__, "method": method_name, "args": args, "self": root}

    # ---- the method's arguments ----

    def _argument(self, name, value):
        if name in self.compiletime:
            return self._value(value, name) or _unsupported(value, "a compile-time argument must be a bool, int, str, enum or tuple of them", "pass a number, boolean, string or enum member")
        return self._runtime(value, name, name, argument=True)

    def _runtime(self, value, expr, hint, argument=False):
        array = _array(value)
        if array is not None:
            return self._array(array, value, expr, hint)
        if isinstance(value, (bool, np.bool_)):
            if argument:
                return self._scalar("bool", expr, hint)
            return {"kind": "value", "value": {"bool": bool(value)}}
        if isinstance(value, (int, np.integer)) and not isinstance(value, enum.Enum):
            if argument:
                return self._scalar("int64", expr, hint)
            return {"kind": "value", "value": {"int": int(value)}}
        if isinstance(value, (float, np.floating)):
            return self._scalar("float32" if isinstance(value, np.float32) else "float64", expr, hint)
        if argument and (dataclasses.is_dataclass(value) or isinstance(value, types.SimpleNamespace)):
            # a State: every member the method could read, described now
            items = {}
            for key, member in vars(value).items():
                items[f".{key}"] = self._runtime(member, f"{expr}.{key}", f"{hint}_{key}", argument=True)
            return {"kind": "record", "type": type(value).__name__, "items": items}
        return self._value(value, hint) or _unsupported(value, "orch cannot describe this argument", "pass arrays, Quantities, numbers, booleans or a dataclass of Quantities")

    def _array(self, array, holder, expr, hint):
        known = self.access._arrays.get(id(array))
        if known is not None:
            return known
        param = self.access.fresh(hint)
        self.access.params[param] = f"{expr}.data" if holder is not array else expr
        node = {"kind": "array", "param": param, "dtype": _dtype(array.dtype), "axes": _axes(array, getattr(holder, "dims", None) if holder is not array else None)}
        self.access._arrays[id(array)] = node
        return node

    def _scalar(self, dtype, expr, hint):
        param = self.access.fresh(hint)
        self.access.params[param] = expr
        return {"kind": "scalar", "param": param, "dtype": dtype}

    # ---- self ----

    def _component(self, obj, method_name, expr, hint):
        """An orchestrated object; `method_name` (its orchestrated __call__, or the entry
        method) is described now, other orchestrated methods when the closure reaches them."""
        known = self._described.get(id(obj))
        if known is not None:
            node = known[0]
        else:
            cls = _user_class(obj)
            marker = getattr(obj, "__orch_orchestrated__", None) or {}
            call = "__call__" if "__call__" in marker else method_name or next(iter(marker), "__call__")
            node = {"kind": "component", "file": source_file(cls), "class": cls.__name__, "method": call, "items": {}, "_methods": set()}
            self._described[id(obj)] = (node, expr, hint)
        if method_name is not None:
            self._describe_method(obj, method_name)
        return node

    def _describe_method(self, obj, name):
        node, expr, hint = self._described[id(obj)]
        if name in node["_methods"]:
            return
        node["_methods"].add(name)
        for chain in _self_chains(_function_of(_user_class(obj), name)):
            self._follow(obj, node, chain, expr, hint)

    def _follow(self, value, node, chain, expr, hint):
        """Describes `value` along `chain` (steps ('.', name) / ('[]', key)) into `node['items']`."""
        if not chain:
            return
        kind, key = chain[0]
        item = f".{key}" if kind == "." else f"[{json.dumps(key)}]"
        step_expr = f"{expr}.{key}" if kind == "." else f"{expr}[{key!r}]"
        step_hint = f"{hint}_{key}"
        if item in node["items"] and node["items"][item]["kind"] not in ("record", "component"):
            return
        try:
            member = getattr(value, key) if kind == "." else value[key]
        except Exception as e:  # noqa: BLE001 - reported where the method reads it
            node["items"][item] = {"kind": "unsupported", "type": "missing", "why": f"reading it failed: {type(e).__name__}: {e}", "hint": "set it in __init__ before the first call"}
            return
        child = node["items"].get(item) or self._member(value, member, key if kind == "." else None, step_expr, step_hint, more=len(chain) > 1)
        node["items"][item] = child
        if child["kind"] in ("record", "component") and len(chain) > 1:
            self._follow(member, child, chain[1:], step_expr, step_hint)

    def _member(self, owner, value, attr, expr, hint, more):
        stencil = _stencil(value)
        if stencil is not None:
            return stencil
        marker = getattr(value, "__orch_orchestrated__", None)
        if isinstance(marker, dict) and not inspect.ismethod(value):
            # a nested orchestrated component: inlined
            return self._component(value, "__call__" if "__call__" in marker else None, expr, hint)
        orchestrated = getattr(value, "__orch_method__", None)
        if orchestrated is not None:
            # `self.method` orchestrated with method_to_orchestrate: inlined with its own self
            obj, name = orchestrated
            if obj is owner and id(obj) in self._described:
                self._describe_method(obj, name)
                return {"kind": "method", "name": name}
            return _unsupported(value, "an orchestrated method of an object that is not an orchestrated component", "orchestrate the object's methods in its own __init__")
        if is_wrapped_halo_updater(value):
            node = {"kind": "record", "type": type(value).__name__, "items": {}}
            self._halo_updaters.append((node, value))
            return node
        if callable(value) and (inspect.ismethod(value) or inspect.isfunction(value)):
            fn = value.__func__ if inspect.ismethod(value) else value
            # NDSL's dace_inhibitor marks nothing: a WrappedHaloUpdater's methods are known by name
            halo_call = is_wrapped_halo_updater(owner) and fn.__name__ in HALO_CALLS
            if getattr(fn, "__orch_callback__", False) or getattr(fn, "__dace_inhibitor__", False) or halo_call:
                path = expr
                self.access.callbacks[path] = value
                cls = _user_class(value.__self__) if inspect.ismethod(value) else None
                return {"kind": "callback", "path": path, "file": source_file(fn), "class": cls.__name__ if cls else None, "name": fn.__name__}
            return _unsupported(value, f"method '{fn.__name__}' is neither orchestrated nor a callback", f"orchestrate it (orchestrate(obj=self, config=..., method_to_orchestrate={fn.__name__!r})) or mark it @dace_inhibitor to run it on the host")
        array = _array(value)
        if array is not None:
            return self._array(array, value, expr, hint)
        forced = attr is not None and (attr in self.compiletime or f"self.{attr}" in self.compiletime)
        if isinstance(value, (float, np.floating)) and not forced:
            return self._scalar("float32" if isinstance(value, np.float32) else "float64", expr, hint)
        described = self._value(value, hint)
        if described is not None:
            return described
        if isinstance(value, (dict, list, tuple)) or dataclasses.is_dataclass(value) or isinstance(value, types.SimpleNamespace) or _plain_object(value):
            return {"kind": "record", "type": type(value).__name__, "items": {}}
        return _unsupported(value, "orch cannot describe this object", "keep arrays, Quantities, numbers, booleans, strings, enums, stencils and orchestrated components on self; use the object inside a @dace_inhibitor method")

    def _value(self, value, hint):
        v = _config_value(value)
        return None if v is None else {"kind": "value", "value": v}


def _config_value(value):
    """A compile-time value as the tagged JSON the frontend reads, or None."""
    if value is None:
        return {"none": True}
    if isinstance(value, enum.Enum):
        inner = _config_value(value.value)
        return {"enum": type(value).__name__, "name": value.name, "value": inner or {"none": True}}
    if isinstance(value, (bool, np.bool_)):
        return {"bool": bool(value)}
    if isinstance(value, (int, np.integer)):
        return {"int": int(value)}
    if isinstance(value, (float, np.floating)):
        return {"float": float(value)}
    if isinstance(value, str):
        return {"str": value}
    if isinstance(value, tuple):
        items = [_config_value(v) for v in value]
        if all(i is not None for i in items) and not any("float" in i for i in items):
            return {"tuple": items}
    return None


def _unsupported(value, why, hint):
    return {"kind": "unsupported", "type": type(value).__name__, "why": why, "hint": hint}


def _array(value):
    """The array of a numpy/CuPy array, a GT4Py storage, or an NDSL Quantity; None otherwise."""
    if isinstance(value, np.ndarray) or hasattr(value, "__cuda_array_interface__"):
        return value
    data = getattr(value, "data", None)
    if (isinstance(data, np.ndarray) or hasattr(data, "__cuda_array_interface__")) and hasattr(value, "dims"):
        return data
    return None


def _dtype(dtype):
    name = np.dtype(dtype).name
    return name if name in ("float64", "float32", "int64", "int32", "bool") else name


def _axes(array, dims):
    if dims:
        return "".join(_DIMS_TO_AXES.get(d, "?") for d in dims)
    return {3: "IJK", 2: "IJ", 1: "K"}.get(array.ndim, "?" * array.ndim)


def _stencil(value):
    """A stencil object's definition, externals, and (FrozenStencil) origin and domain."""
    from ..stencil import Stencil

    inner = getattr(value, "stencil_object", None)
    if inner is not None and hasattr(value, "origin") and hasattr(value, "domain"):
        # an NDSL FrozenStencil: its stencil object, with a fixed origin and domain
        definition = _definition(inner)
        if definition is None:
            return None
        externals, origin, domain = getattr(value, "externals", None) or getattr(inner, "externals", None), value.origin, value.domain
        if isinstance(origin, dict):
            origin = origin.get("_all_")
    elif isinstance(value, Stencil):
        definition, externals, origin, domain = value.definition, value.externals, None, None
    elif hasattr(value, "definition_func") and hasattr(value, "externals"):  # a GT4Py stencil object
        definition, externals, origin, domain = value.definition_func, value.externals, None, None
    else:
        return None
    from .. import layout

    layout_build = bool(layout.current_key())
    ext = {}
    for name, v in (externals or {}).items():
        if layout_build and name in REGION_EXTERNALS:
            continue  # computed by orch for the rank's code path
        ext[name] = external_value(v)
    return {
        "kind": "stencil",
        "file": source_file(definition),
        "name": definition.__name__,
        "externals": ext,
        "origin": [int(x) for x in origin] if origin is not None else None,
        "domain": [int(x) for x in domain] if domain is not None else None,
    }


def _definition(stencil_object):
    from ..stencil import Stencil

    if isinstance(stencil_object, Stencil):
        return stencil_object.definition
    return getattr(stencil_object, "definition_func", None)


def external_value(v):
    if hasattr(v, "axis") and hasattr(v, "index") and hasattr(v, "offset"):
        return {"axis": str(v.axis), "index": int(v.index), "offset": int(v.offset)}
    if inspect.isfunction(v):
        return {"function": f"{v.__module__}.{v.__name__}"}
    if type(v).__name__ == "Axis" and getattr(v, "name", None) in ("I", "J", "K"):
        # gtscript.I / gtscript.Axis("I") (GT4Py's, the stand-in's): field[AXIS - 1]
        return {"axisObject": v.name}
    if isinstance(v, types.SimpleNamespace):
        # a namespace of externals, NS.a.b (nested namespaces, numbers, functions...)
        return {"namespace": "SimpleNamespace", "attrs": {k: external_value(x) for k, x in vars(v).items()}}
    c = _config_value(v)
    if c is None:
        raise TypeError(f"external of type {type(v).__name__} cannot be passed to orch")
    return c


def _plain_object(value):
    return hasattr(value, "__dict__") and not callable(value) and not inspect.ismodule(value) and not isinstance(value, type)


def _user_class(obj):
    """The component's own class (NDSL's orchestrate patches instances with a subclass)."""
    cls = type(obj)
    while getattr(cls, "__orch_patched__", False) or cls.__qualname__.endswith("_patched"):
        cls = cls.__mro__[1]
    return cls


def _function_of(cls, name):
    for klass in cls.__mro__:
        if name in vars(klass):
            fn = vars(klass)[name]
            return getattr(fn, "__orch_original__", fn)
    raise AttributeError(f"{cls.__name__} has no method {name!r}")


_chains_cache = {}


def _self_chains(fn):
    """The maximal `self.<attr>...` chains (attributes, constant subscripts) the function reads."""
    key = (source_file(fn), fn.__qualname__)
    chains = _chains_cache.get(key)
    if chains is None:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        chains = []
        for node in ast.walk(tree):
            chain = _chain(node)
            if chain and not _extended(node, tree):
                chains.append(chain)
        _chains_cache[key] = chains
    return chains


def _chain(node):
    steps = []
    while True:
        if isinstance(node, ast.Attribute):
            steps.append((".", node.attr))
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, (str, int)):
            steps.append(("[]", node.slice.value))
            node = node.value
        elif isinstance(node, ast.Name) and node.id == "self":
            return list(reversed(steps)) or None
        else:
            return None


def _extended(node, tree):
    """Whether a longer chain contains `node` (only maximal chains are followed; prefixes are on the way)."""
    for parent in ast.walk(tree):
        if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is node and _chain(parent):
            return True
    return False


def to_json(closure):
    """The closure as the frontend reads it (bookkeeping keys dropped), canonical for the cache key."""

    def clean(node):
        if isinstance(node, dict):
            return {k: clean(v) for k, v in node.items() if not k.startswith("_")}
        if isinstance(node, list):
            return [clean(v) for v in node]
        return node

    return json.dumps(clean(closure), sort_keys=True)
