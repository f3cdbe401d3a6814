"""@program: the code between stencil calls. Python mode runs it as plain Python; compiled
modes build it through orch (once per specialization) and call its library.

A compiled call goes through a small function generated per program with the program's
own signature (defaults included), which picks the bound library for the compile-time
values and calls it with the runtime arguments: the per-call cost is that of the
generated binding (microseconds), not of argument introspection."""
import functools
import inspect
import numbers

from . import cli, layout, modes
from .callback import resolve as resolve_callbacks
from .compiletime import is_compiletime
from .library import open_program
from .source import source_file


class Program:
    """What `@program` returns for a function."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._dispatch = None

    def __call__(self, *args, **kwargs):
        if modes.mode() == "python":
            return self._fn(*args, **kwargs)
        dispatch = self._dispatch
        if dispatch is None:
            dispatch = self._dispatch = _dispatcher(self._fn, source_file(self._fn), self._fn.__name__, method=False)
        return dispatch(*args, **kwargs)

    def __set_name__(self, owner, name):
        # `@program` on a class's __call__ makes the class a program class
        if name == "__call__":
            owner.__call__ = self._fn
            _program_class(owner)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)


def _program_class(cls):
    """Makes `cls` a program class: constructor arguments are recorded (they are its
    compile-time values) and `__call__` dispatches on the mode."""
    init = cls.__init__
    call = cls.__call__
    init_signature = inspect.signature(init)
    state = {"dispatch": None}

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        bound = init_signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        ctor = {k: v for k, v in list(bound.arguments.items())[1:]}
        self._orch_constructor = ctor
        try:
            self._orch_key = tuple(sorted(ctor.items()))
            hash(self._orch_key)
        except TypeError:
            self._orch_key = ("unhashable", id(self))
        init(self, *args, **kwargs)

    @functools.wraps(call)
    def __call__(self, *args, **kwargs):
        if modes.mode() == "python":
            return call(self, *args, **kwargs)
        dispatch = state["dispatch"]
        if dispatch is None:
            dispatch = state["dispatch"] = _dispatcher(call, source_file(cls), cls.__name__, method=True)
        return dispatch(self, *args, **kwargs)

    if init is not object.__init__:
        cls.__init__ = __init__
    else:

        def __init__(self):  # noqa: F811 - a class without its own __init__ takes no arguments
            self._orch_constructor = {}
            self._orch_key = ()

        cls.__init__ = __init__
    cls.__call__ = __call__
    cls.__orch_program__ = True
    return cls


def program(obj):
    """`@program` on a function, on a class (an __init__ storing stencils, temporaries
    and constants on self, plus a __call__), or on a class's __call__."""
    if inspect.isclass(obj):
        return _program_class(obj)
    return Program(obj)


def _dispatcher(fn, file, entry, method):
    """Generates `dispatch(<fn's parameters>)`: bound library per compile-time key, then the call."""
    signature = inspect.signature(fn)
    params = list(signature.parameters.values())
    if method:
        params = params[1:]
    compile_time = [p.name for p in params if is_compiletime(p.annotation, fn.__globals__)]
    runtime = [p.name for p in params if p.name not in compile_time]
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"program {entry!r} takes *{p.name}: programs declare every argument by name")
    names = {"_bound": {}, "_load": None}
    rendered = []
    star = False
    for p in params:
        if p.kind == p.KEYWORD_ONLY and not star:
            rendered.append("*")
            star = True
        text = p.name
        if p.default is not p.empty:
            names[f"_default_{p.name}"] = p.default
            text += f"=_default_{p.name}"
        rendered.append(text)
    key = "(" + "".join(f"{n}, " for n in compile_time) + ")"
    if method:
        key = f"(self._orch_key, {key})"
    head = ("self, " if method else "") + ", ".join(rendered)
    source = (
        f"def dispatch({head}):\n"
        f"    key = {key}\n"
        f"    try:\n"
        f"        bound = _bound.get(key)\n"
        f"    except TypeError:\n"
        f"        bound = None  # an unhashable compile-time value: _load says why\n"
        f"    if bound is None:\n"
        f"        bound = _load(key, {'self' if method else 'None'}, {{{', '.join(f'{n!r}: {n}' for n in compile_time)}}})\n"
        f"    return bound({', '.join(runtime)})\n"
    )

    def load(key, obj, call_defines):
        defines = {}
        if obj is not None:
            defines.update(_constant_defines(entry, obj._orch_constructor, "constructor argument"))
        defines.update(_constant_defines(entry, call_defines, "compile-time argument"))
        report = cli.build_entry(file, entry, defines, build=modes.mode() != "run", layout_args=layout.cli_args())
        if modes.mode() == "build":
            bound = _not_run
        else:
            bound = open_program(report, resolve_callbacks(report["interface"].get("callbacks") or []))
        names["_bound"][key] = bound
        return bound

    names["_load"] = load
    exec(compile(source, f"<orch dispatch of {entry}>", "exec"), names)  # noqa: S102 - generated from the signature
    return names["dispatch"]


def _not_run(*args):
    """ORCH_MODE=build: the program is built, not run."""
    return None


def _constant_defines(entry, values, what):
    out = {}
    for name, value in values.items():
        if isinstance(value, bool) or (isinstance(value, numbers.Number) and not isinstance(value, complex)):
            out[name] = value.item() if hasattr(value, "item") else value
        else:
            raise TypeError(
                f"{entry}: {what} {name!r} is {type(value).__name__}; orch specializes programs on "
                "compile-time values, which must be numbers or booleans"
            )
    return out
