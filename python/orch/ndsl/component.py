"""An orchestrated method of one object: Python mode calls it as it is; compiled modes
resolve its closure at the first call, build (or look up) one library for the whole call
tree, and call it through a function generated for the method's own parameters, which
reads every array and float of the closure from the object on each call (so a reallocated
array is seen and rebound: NDSL issue 436) and passes them by position to the binding."""
import atexit
import inspect
import os
import sys
import tempfile

from .. import cli, layout
from ..callback import resolve as resolve_callbacks
from ..errors import BuildError, CacheMissError, OrchError
from ..library import build_and_open
from ..parameter_list import parameter_list
from .closure import Resolver, to_json

#: Build mode: what each orchestrated component's build gave, for the summary at exit
_build_log = []


class OrchestratedMethod:
    """`method_to_orchestrate` of `obj`, as orchestrate() installs it."""

    def __init__(self, obj, func, name, mode, compiletime_args):
        self.obj = obj
        self.func = func
        self.name = name
        self.mode = mode
        self.compiletime = tuple(compiletime_args or ())
        self.signature = inspect.signature(func)
        self._params = list(self.signature.parameters)[1:]
        self._calls = {}
        self._bound = {}
        self.__orch_method__ = (obj, name)

    def __call__(self, *args, **kwargs):
        if self.mode() == "python":
            return self.func(self.obj, *args, **kwargs)
        if not self.compiletime:
            call = self._calls.get(())
            if call is not None:
                return call(self.obj, *args, **kwargs)
        bound = self.signature.bind(self.obj, *args, **kwargs)
        bound.apply_defaults()
        values = dict(list(bound.arguments.items())[1:])
        key = tuple(values[n] for n in self.compiletime if n in values)
        call = self._calls.get(key)
        if call is None:
            call = self._load(key, values)
        return call(self.obj, *bound.args[1:], **bound.kwargs)

    def _load(self, key, values):
        resolver = Resolver(self.compiletime)
        closure = resolver.describe(self.obj, self.name, values)
        text = to_json(closure)
        what = f"{closure['class']}.{self.name}"
        mode = self.mode()
        with tempfile.NamedTemporaryFile("w", prefix="orch-closure-", suffix=".json", delete=False) as f:
            f.write(text)
        callbacks_of = lambda report: _callbacks(report, resolver.access.callbacks)  # noqa: E731
        options = {"layout_args": layout.cli_args(), "extra_args": ["--closure", f.name]}
        try:
            try:
                if mode == "build":
                    report, program = cli.build_entry(closure["file"], closure["class"], {}, **options), None
                else:
                    report, program = build_and_open(closure["file"], closure["class"], {}, callbacks_of, build=mode != "run", **options)
            except (BuildError, CacheMissError) as e:
                if mode == "build":
                    _record(what, "error", f"{_shown(closure['file'])}\n{e}")
                    self._calls[key] = _not_run
                    return _not_run
                message = str(e).replace("build it first (ORCH_MODE=build-and-run, or orch build)", "build it first (FV3_DACEMODE=Build or BuildAndRun)")
                raise type(e)(f"orchestrated {what} ({closure['file']}): {message}") from None
        finally:
            os.unlink(f.name)
        if mode == "build":
            # `orch build --json` says "miss" for an entry it built
            _record(what, "hit" if report.get("status") == "hit" else "built", _shown(closure["file"]))
            self._calls[key] = _not_run
            return _not_run
        order = [p["name"] for p in _signature_params(report)]
        call = _generate(self.func, self.signature, resolver.access.params, order, program)
        self._bound[key] = program
        self._calls[key] = call
        return call


def _signature_params(report):
    from ..library import binding_module

    return binding_module(report["binding"]).SIGNATURE["params"]


def _callbacks(report, by_path):
    """The host functions of a build's callbacks: a closure's by path, module-level ones by registry."""
    declared = report["interface"].get("callbacks") or []
    out = {}
    plain = []
    for decl in declared:
        path = decl["function"].get("path")
        if path is not None:
            out[decl["name"]] = by_path[path]
        else:
            plain.append(decl)
    out.update(resolve_callbacks(plain))
    return out


def _generate(func, signature, access, order, program):
    """`call(_self, <the method's parameters>)`: reads the closure's parameters and calls the library."""
    names = {"_run": program.__call__}
    missing = [p for p in order if p not in access]
    if missing:
        raise OrchError(f"the library of {func.__qualname__} takes {missing[0]!r}, which its closure does not describe")
    params = list(signature.parameters.values())[1:]
    for p in params:
        if p.name in ("_self", "_run") or p.name.startswith("_default_"):
            raise OrchError(f"{func.__qualname__}: a parameter named {p.name!r} clashes with orch's generated call; rename it")
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise OrchError(f"{func.__qualname__} takes *{p.name}: orchestrated methods declare every argument by name")
    rendered = parameter_list(params, names)
    source = f"def call(_self, {', '.join(rendered)}):\n    return _run({', '.join(access[p] for p in order)})\n"
    exec(compile(source, f"<orch call of {func.__qualname__}>", "exec"), names)  # noqa: S102 - generated from the closure
    return names["call"]


def _not_run(*args, **kwargs):
    """Build mode: the component is built, not run."""
    return None


def _record(what, status, detail):
    if not _build_log:
        atexit.register(_summary)
    _build_log.append((what, status, detail))


def _summary():
    """Build mode's report at exit: every component, built or not; exit status 1 on an error."""
    sys.stdout.flush()  # the driver's own output first
    errors = [entry for entry in _build_log if entry[1] == "error"]
    print(f"orch (FV3_DACEMODE=Build): {len(_build_log)} orchestrated component(s), {len(errors)} error(s)", file=sys.stderr)
    for what, status, detail in _build_log:
        where, _, message = detail.partition("\n")
        line = f"  {status:<6} {what} ({where})"
        print(line if status != "error" else f"{line}\n{_indent(message)}", file=sys.stderr)
    sys.stderr.flush()
    if errors:
        os._exit(1)


def _shown(file):
    rel = os.path.relpath(file)
    return file if rel.startswith("..") else rel


def _indent(text):
    return "\n".join("      " + line for line in text.splitlines())
