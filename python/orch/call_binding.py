"""GT4Py's call interface for a stencil object (its stencil_object.py): which arguments a call
may leave out, what counts as an array, whose origin a field takes, and the axes check."""
import functools
import inspect

import numpy as np


def bind(name, definition, args, kwargs):
    """The call's arguments by parameter name; those left out take their default (None for a
    `=None` field or scalar, which the interface decides on later)."""
    params = _parameters(definition)
    names = list(params)
    if len(args) > len(names):
        raise TypeError(f"{name}() takes {len(names)} arguments, got {len(args)}")
    values = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in params:
            raise TypeError(f"{name}() has no parameter {k!r}")
        values[k] = v
    for p in names:
        if p not in values:
            default = params[p].default
            if default is inspect.Parameter.empty:
                raise TypeError(f"{name}() is missing argument {p!r}")
            values[p] = default
    return values


@functools.lru_cache(maxsize=None)
def _parameters(definition):
    """The definition's parameters, read once (a call binds its arguments on every call)."""
    return inspect.signature(definition).parameters


def array_of(value):
    """An ndarray over the caller's memory: any object with `__array_interface__` is viewed, not copied."""
    if isinstance(value, np.ndarray) or not hasattr(value, "__array_interface__"):
        return value
    return np.asarray(value)


def call_origin(origin, values):
    """GT4Py's origin of each field: the call's entry for it, else `_all_` (or the one tuple),
    else the array's `__gt_origin__`; a plain dict/tuple as orch's interpreter takes it."""
    own = {k: tuple(int(x) for x in v.__gt_origin__) for k, v in values.items() if getattr(v, "__gt_origin__", None) is not None}
    if not own or (origin is not None and not isinstance(origin, dict)):
        return origin
    origin = dict(origin or {})
    if "_all_" in origin:
        return origin
    for name, o in own.items():
        origin.setdefault(name, o)
    return origin


def field_view(name, value, axes, dims):
    """The field as the stencil indexes it, in the caller's memory: GT4Py's ValueError for a
    rank or `__gt_dims__` that does not match the field's axes; axes given in another order
    (`__gt_dims__` "KJI") are transposed, as GT4Py does."""
    expected = "[" + ", ".join(axes) + "]"
    array = array_of(value)
    if array.ndim != len(axes) + len(dims):
        raise ValueError(f"Storage for '{name}' has {array.ndim} dimensions but the API signature expects {len(axes) + len(dims)} ('{expected}')")
    if tuple(array.shape[len(axes):]) != tuple(dims):
        raise ValueError(f"Field '{name}' expects data dimensions {tuple(dims)} but got {tuple(array.shape[len(axes):])}")
    given = getattr(value, "__gt_dims__", None)
    if given is None:
        return array
    given = [str(d) for d in given]
    if sorted(given[: len(axes)]) != sorted(axes):
        raise ValueError(f"Storage for '{name}' has dimensions '{given}' but the API signature expects '{expected}'")
    order = [given.index(a) for a in axes] + list(range(len(axes), array.ndim))
    return array.transpose(order)


def left_out(values, fields, stencil):
    """The fields and scalars left out (None): allowed only where the stencil never touches
    them after compile-time folding; else GT4Py's ValueError / TypeError."""
    untouched = {f["name"] for f in stencil["fields"] if f.get("untouched")}
    unused = set(stencil.get("unusedScalars", []))
    for name, value in values.items():
        if value is not None:
            continue
        if name in fields and name not in untouched:
            raise ValueError(f"field '{name}' was left out (None), but the stencil reads or writes it; pass an array")
        if name not in fields and name not in unused:
            raise TypeError(f"scalar '{name}' was left out (None), but the stencil reads it; pass a value")
