"""@program: the code between stencil calls. Python mode runs it as plain Python; compiled
modes build it through orch (once per specialization) and call its library.

A compiled call goes through a small function generated per program with the program's
own signature (defaults included), which picks the bound library for the compile-time
values and calls it with the runtime arguments: the per-call cost is that of the
generated binding (microseconds), not of argument introspection. After the first
compiled call that function is the program's `__call__` itself (on a class of the
program's own), so a call packs no *args/**kwargs and goes through one Python frame
before the binding's."""
import functools
import inspect
import numbers

from . import cli, layout, modes
from .callback import resolve as resolve_callbacks
from .compiletime import is_compiletime
from .library import build_and_open
from .parameter_list import parameter_list
from .source import source_file


class Program:
    """What `@program` returns for a function."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._dispatch = None
        # a class per program, so the first compiled call can install the generated
        # dispatch as this program's __call__ (Python looks __call__ up on the type)
        cls = type(self)
        self.__class__ = type(cls.__name__, (cls,), {"__module__": cls.__module__, "__qualname__": cls.__qualname__})

    def __call__(self, *args, **kwargs):
        if modes.mode() == "python":
            return self._fn(*args, **kwargs)
        dispatch = self._dispatch
        if dispatch is None:
            dispatch = self._dispatch = _dispatcher(self._fn, source_file(self._fn), self._fn.__name__, method=False)
            type(self).__call__ = dispatch
        return dispatch(self, *args, **kwargs)

    def sync(self):
        """CUDA builds: waits for the kernels this program's calls queued and raises what they
        recorded (see `orch.set_synchronize`); nothing to wait for on a CPU build."""
        bound = getattr(self._dispatch, "_orch_bound", {})
        for binding in list(bound.values()):
            if hasattr(binding, "sync"):
                binding.sync()

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
            dispatch = state["dispatch"] = functools.update_wrapper(_dispatcher(call, source_file(cls), cls.__name__, method=True), call)
            cls.__call__ = dispatch
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
    """Generates `dispatch(self, <fn's parameters>)`, a __call__ for the program (self is
    the Program, or the program class's instance when `method`): Python mode calls `fn`;
    compiled modes call the bound library of the compile-time values with the runtime ones."""
    signature = inspect.signature(fn)
    params = list(signature.parameters.values())
    if method:
        params = params[1:]
    compile_time = [p.name for p in params if is_compiletime(p.annotation, fn.__globals__)]
    runtime = [p.name for p in params if p.name not in compile_time]
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"program {entry!r} takes *{p.name}: programs declare every argument by name")
    this = "self" if method else "_orch_program"
    while any(p.name == this for p in params):
        this += "_"
    names = {"_bound": {}, "_calls": {}, "_load": None, "_fn": fn, "_modes": modes, "_mode": modes.mode}
    rendered = parameter_list(params, names)
    passed = [this] if method else []
    passed += [f"{p.name}={p.name}" if p.kind == p.KEYWORD_ONLY else p.name for p in params]
    key = "(" + "".join(f"{n}, " for n in compile_time) + ")"
    if method:
        key = f"({this}._orch_key, {key})"
    source = (
        f"def dispatch({', '.join([this, *rendered])}):\n"
        f"    if (_modes._mode or _mode()) == 'python':\n"
        f"        return _fn({', '.join(passed)})\n"
        f"    key = {key}\n"
        f"    try:\n"
        f"        call = _calls[key]\n"
        f"    except (KeyError, TypeError):  # not loaded yet, or an unhashable compile-time value: _load says why\n"
        f"        call = _load(key, {this if method else 'None'}, {{{', '.join(f'{n!r}: {n}' for n in compile_time)}}})\n"
        f"    return call({', '.join(runtime)})\n"
    )

    def load(key, obj, call_defines):
        defines = {}
        if obj is not None:
            defines.update(_constant_defines(entry, obj._orch_constructor, "constructor argument"))
        defines.update(_constant_defines(entry, call_defines, "compile-time argument"))
        if modes.mode() == "build":
            cli.build_entry(file, entry, defines, layout_args=layout.cli_args())
            bound = call = _not_run
        else:
            _, bound = build_and_open(file, entry, defines, lambda r: resolve_callbacks(r["interface"].get("callbacks") or []), build=modes.mode() != "run", layout_args=layout.cli_args())
            call = bound.__call__  # a bound method: called without the type's __call__ lookup
        names["_bound"][key] = bound
        names["_calls"][key] = call
        return call

    names["_load"] = load
    exec(compile(source, f"<orch dispatch of {entry}>", "exec"), names)  # noqa: S102 - generated from the signature
    dispatch = names["dispatch"]
    dispatch.__name__, dispatch.__qualname__ = fn.__name__, fn.__qualname__  # argument errors name the program
    dispatch._orch_bound = names["_bound"]  # for Program.sync
    return dispatch


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
