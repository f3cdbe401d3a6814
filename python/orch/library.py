"""Loads the generated ctypes binding (binding.py) of a built program from its cache entry."""
import hashlib
import importlib.util
import sys

from . import device

_modules = {}


def binding_module(path):
    """The binding module at `path`, imported once per process under a unique name."""
    module = _modules.get(path)
    if module is None:
        name = "orch_binding_" + hashlib.sha256(path.encode()).hexdigest()[:16]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _modules[path] = module
    return module


def open_program(report, callbacks):
    """A bound `Program` for a build report (`orch build --json` entry), callbacks registered."""
    module = binding_module(report["binding"])
    if module.SIGNATURE.get("target") == "cuda":
        # device arrays, and calls that may return before their kernels finish (orch.device)
        return device.register(module.Program(report["library"], callbacks=callbacks))
    return module.Program(report["library"], callbacks=callbacks)
