"""NDSL's orchestration surface, with orch as the backend.

    import orch.ndsl
    orch.ndsl.install()   # in the driver, before the model is imported

patches `ndsl.orchestrate`, `ndsl.dsl.dace.orchestration.orchestrate` and
`orchestrate_function` (and `dace_inhibitor`), so unchanged NDSL components are compiled by
orch: one library per orchestrated call tree. Without NDSL, `from orch.ndsl import
orchestrate, orchestrate_function, dace_inhibitor` offers the same decorators.

The mode is NDSL's: an NDSL `DaceConfig` gives it (`get_orchestrate()`, from FV3_DACEMODE
when it was made); `config=None`, or a config that is not NDSL's, takes it from
FV3_DACEMODE (``Python``, ``Build``, ``BuildAndRun``, ``Run``), or ORCH_MODE.
"""
import importlib
import sys

from .. import modes
from ..callback import callback as _callback
from ..program import Program
from .component import OrchestratedMethod

__all__ = ["orchestrate", "orchestrate_function", "dace_inhibitor", "install", "mode_of"]


def mode_of(config):
    """orch's mode for a component's config (an NDSL DaceConfig, or anything else: the process's mode)."""
    get = getattr(config, "get_orchestrate", None)
    if callable(get):
        value = get()
        name = getattr(value, "name", value)
        return modes.from_fv3_dacemode(str(name))
    return modes.mode()


def dace_inhibitor(func):
    """Marks a function or method as host code: an orchestrated method calls it back, in order."""
    func.__dace_inhibitor__ = True
    if "." not in func.__qualname__:
        _callback(func)  # a module-level function: registered like @callback
    else:
        func.__orch_callback__ = True
    return func


def orchestrate(*, obj, config=None, method_to_orchestrate="__call__", dace_compiletime_args=None):
    """NDSL's `orchestrate(obj=self, config=...)`: compiles `obj.<method_to_orchestrate>`
    (and everything it calls) with orch in the compiled modes; Python mode leaves it as it is."""
    mode = mode_of(config)  # an invalid FV3_DACEMODE is reported here, at construction
    if not hasattr(obj, method_to_orchestrate):
        raise RuntimeError(f"Could not orchestrate, {type(obj).__name__}.{method_to_orchestrate} does not exists")
    cls = type(obj)
    func = None
    for klass in cls.__mro__:
        if method_to_orchestrate in vars(klass):
            func = vars(klass)[method_to_orchestrate]
            break
    func = getattr(func, "__orch_original__", func)
    marker = obj.__dict__.setdefault("__orch_orchestrated__", {})
    wrapped = OrchestratedMethod(obj, func, method_to_orchestrate, lambda: mode if config is not None and hasattr(config, "get_orchestrate") else modes.mode(), dace_compiletime_args)
    marker[method_to_orchestrate] = wrapped
    if method_to_orchestrate == "__call__":
        # `obj(...)` looks __call__ up on the type: one subclass per instance, named as the class
        def __call__(self, *args, **kwargs):
            return self.__orch_orchestrated__["__call__"](*args, **kwargs)

        __call__.__orch_original__ = func
        patched = type(cls.__name__, (cls,), {"__call__": __call__, "__orch_patched__": True, "__module__": cls.__module__, "__qualname__": cls.__qualname__})
        obj.__class__ = patched
    else:
        setattr(obj, method_to_orchestrate, wrapped)


def orchestrate_function(config=None, dace_compiletime_args=None):
    """NDSL's `@orchestrate_function(config=...)`: inlined where an orchestrated method calls
    it; called directly in a compiled mode it is an orch `@program` (annotated parameters)."""

    def decorator(func):
        if mode_of(config) == "python":
            return func
        return Program(func)

    return decorator


def install():
    """Makes NDSL's orchestration use orch: patches `ndsl.orchestrate`,
    `ndsl.dsl.dace.orchestration.orchestrate`, `orchestrate_function` and `dace_inhibitor`
    (the modules that are importable). Call it in the driver before the model is imported;
    without NDSL it does nothing beyond offering `orch.ndsl`'s decorators."""
    patched = []
    for name in ("ndsl", "ndsl.dsl.dace.orchestration", "ndsl.dsl.dace"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if getattr(module, "__orch_stand_in__", False):
            continue
        for attr, value in (("orchestrate", orchestrate), ("orchestrate_function", orchestrate_function), ("dace_inhibitor", dace_inhibitor)):
            if hasattr(module, attr) or name == "ndsl.dsl.dace.orchestration":
                setattr(module, attr, value)
        patched.append(name)
    # modules that imported the names before install() keep NDSL's: say so
    for mod_name, module in list(sys.modules.items()):
        if mod_name.split(".")[0] in ("ndsl", "orch") or module is None:
            continue
        if getattr(module, "orchestrate", orchestrate) is not orchestrate and getattr(getattr(module, "orchestrate", None), "__module__", "").startswith("ndsl"):
            raise RuntimeError(f"{mod_name} imported ndsl's orchestrate before orch.ndsl.install(): call install() in the driver before importing the model")
    return patched
