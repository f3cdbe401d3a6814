"""@callback: a host function the compiled program calls with scalar arguments."""
import os

from .source import source_file

_registry = {}


def callback(fn):
    """Marks `fn` as a host callback. It stays an ordinary Python function: Python mode
    calls it directly, compiled programs call it through a C function pointer."""
    _registry[(os.path.realpath(source_file(fn)), fn.__name__)] = fn
    fn.__orch_callback__ = True
    return fn


def resolve(declarations):
    """The Python functions of a compiled program's callbacks (from its signature)."""
    functions = {}
    for decl in declarations:
        where = decl["function"]
        fn = _registry.get((os.path.realpath(where["file"]), where["name"]))
        if fn is None:
            raise LookupError(
                f"callback {where['name']!r} of {where['file']} is not registered: "
                "import its module (decorated with @callback) before calling the program"
            )
        functions[decl["name"]] = fn
    return functions
