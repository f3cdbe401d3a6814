"""The checks of a stencil call's arguments that its annotations allow, made before the
call in every mode, so Python mode and compiled mode raise the same exception with the same
message as the compiled binding (a field that is not an array, an array for a scalar),
with no command-line hints and no AttributeError from inside orch."""
import numpy as np

_SCALARS = {float: "float64", int: "int64", bool: "bool"}


def _field(annotation):
    """(dtype, axes) of a Field annotation (orch's stand-in or GT4Py's), else None."""
    dtype, axes = getattr(annotation, "dtype", None), getattr(annotation, "axes", None)
    if dtype is None or axes is None or isinstance(annotation, type):
        return None
    names = axes if isinstance(axes, str) else "".join(getattr(a, "name", str(a)) for a in axes)
    return np.dtype(dtype).name, names


def _scalar(annotation):
    """The dtype name of a scalar annotation (float, np.float64, NDSL's Float, ...), else None."""
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    try:
        return np.dtype(annotation).name if isinstance(annotation, type) and issubclass(annotation, np.generic) else None
    except TypeError:
        return None


def _describe(dtype):
    return "a bool" if dtype == "bool" else f"an integer ({dtype})" if dtype.startswith("int") else f"a number ({dtype})"


def _annotations(definition):
    """Parameter -> annotation; postponed (string) ones resolved in the definition's module, as Python would."""
    out = {}
    for param, annotation in getattr(definition, "__annotations__", {}).items():
        if isinstance(annotation, str):
            try:
                annotation = eval(annotation, definition.__globals__)  # noqa: S307 - the user's own annotation
            except Exception:  # noqa: BLE001 - an annotation orch cannot resolve is checked by the build instead
                continue
        out[param] = annotation
    return out


def check_domain(name, definition, values, origin_of, domain):
    """An explicit domain= that does not fit a field from its origin: ValueError in every mode,
    in Python's words (domain=, origin=), before anything runs."""
    if domain is None:
        return
    for param, annotation in _annotations(definition).items():
        field = _field(annotation)
        value = values.get(param)
        if field is None or not isinstance(value, np.ndarray):
            continue
        origin = origin_of(param, field[1])
        for pos, axis in enumerate(field[1]):
            need = origin[pos] + int(domain["IJK".index(axis)])
            if value.shape[pos] < need:
                raise ValueError(
                    f"{name}: domain {tuple(int(d) for d in domain)} at origin {tuple(origin)} needs '{param}' to have at least {need} "
                    f"points along {axis}, but it has shape {value.shape}: pass a smaller domain= or move origin="
                )


def check(name, definition, values):
    """Raises TypeError, worded as the compiled binding words it, for an argument its annotation rules out."""
    annotations = _annotations(definition)
    for param, value in values.items():
        annotation = annotations.get(param)
        field = _field(annotation)
        if field is not None:
            if hasattr(value, "__cuda_array_interface__"):
                continue  # a device array: the CUDA binding checks it, a CPU one says to copy it
            if not isinstance(value, np.ndarray):
                raise TypeError(f"{name}: argument '{param}' must be a numpy array ({field[0]}, {field[1]}), got {type(value).__name__}")
            if value.dtype != np.dtype(field[0]):
                raise TypeError(f"{name}: argument '{param}' has dtype {value.dtype}, expected {field[0]}: convert it with .astype(np.{field[0]})")
            continue
        dtype = _scalar(annotation)
        # a 0-d array is a number to numpy (float() takes it), as to the compiled binding
        if dtype is not None and isinstance(value, np.ndarray) and value.ndim > 0:
            raise TypeError(f"{name}: argument '{param}' must be {_describe(dtype)}, got a numpy array of shape {value.shape}")
