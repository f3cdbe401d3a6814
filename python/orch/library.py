"""Loads the generated ctypes binding (binding.py) of a built program from its cache entry."""
import hashlib
import importlib.util
import sys

from . import cli, device

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


def build_and_open(file, entry, defines, callbacks_of, *, build=True, layout_args=(), extra_args=()):
    """Builds (or looks up) `file:entry` and opens its library: (report, Program). A cached
    library that does not load is reported to orch, which marks its entry bad and rebuilds
    it (in run mode, refuses it saying why) instead of failing every later run."""
    report = cli.build_entry(file, entry, defines, build=build, layout_args=layout_args, extra_args=extra_args)
    try:
        return report, open_program(report, callbacks_of(report))
    except OSError as e:
        if report.get("status") != "hit" or not report.get("key"):
            raise
        report = cli.build_entry(file, entry, defines, build=build, layout_args=layout_args, bad_entries={report["key"]: str(e)}, extra_args=extra_args)
        return report, open_program(report, callbacks_of(report))
